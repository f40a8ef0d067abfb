#pragma once
// Where the syntax tree's lists live while a program is compiled (issue 17): a bump arena with
// a free list per size, made current on the compiling thread for as long as the tree lives.
//
// The tree's lists (a launch's grid, block and arguments, an expression's operators, a block's
// statements …) are many small blocks made and dropped as the parser goes: with the heap, each
// cost a malloc and a free, together about a sixth of the compiler's instructions. From the
// arena a block is a pointer bump or a pop from its size's free list, and the whole arena goes
// back to the heap at once when the compile ends.
//
// Where no arena is current (`cgraphc fmt`, tests that parse alone) the lists use the heap as
// std::vector does. Each block says where it came from in a 16-byte header, so a list made
// from one may be freed anywhere: a block of the heap goes back to it; one of an arena goes to
// that arena's free list while it is current on the freeing thread, and is otherwise left for
// the arena's end.

#include <array>
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

// Under AddressSanitizer the arena marks what it holds but has not handed out (a fresh chunk's
// rest, a block on a free list) as poisoned, so that the sanitizer builds still catch a list
// read after it was freed.
#if defined(__SANITIZE_ADDRESS__)
#define CGRAPH_AST_ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CGRAPH_AST_ARENA_ASAN 1
#endif
#endif
#ifdef CGRAPH_AST_ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define CGRAPH_AST_ARENA_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define CGRAPH_AST_ARENA_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define CGRAPH_AST_ARENA_POISON(p, n) ((void)(p), (void)(n))
#define CGRAPH_AST_ARENA_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace cgraph::dsl::ast {

class arena {
public:
  // Blocks of at most this many bytes (header included) come from the arena; larger ones (a
  // long body's statement list) from the heap, which reuses them as the list grows.
  static constexpr std::size_t largest = 4096;

  arena() = default;
  arena(const arena&) = delete;
  arena& operator=(const arena&) = delete;
  ~arena() {
    for (void* chunk : chunks_) {
      CGRAPH_AST_ARENA_UNPOISON(chunk, chunk_bytes);
      ::operator delete(chunk, std::align_val_t{16});
    }
  }

  // The arena the lists of this thread allocate from, or null. Defined in one file
  // (ast_arena.cpp), so that one pointer per thread holds it however the libraries are linked.
  static arena*& current() noexcept;

  // Makes an arena current on this thread for its lifetime (then the one before again).
  class use {
  public:
    explicit use(arena& a) noexcept : previous_(current()) { current() = &a; }
    ~use() { current() = previous_; }
    use(const use&) = delete;
    use& operator=(const use&) = delete;

  private:
    arena* previous_;
  };

  // `bytes`: a multiple of 16, at most `largest`.
  void* allocate(std::size_t bytes) {
    void*& free = free_[bytes / 16];
    if (free) {
      void* p = free;
      CGRAPH_AST_ARENA_UNPOISON(p, bytes);
      free = *static_cast<void**>(p);
      return p;
    }
    if (static_cast<std::size_t>(end_ - next_) < bytes) grow();
    void* p = next_;
    next_ += bytes;
    CGRAPH_AST_ARENA_UNPOISON(p, bytes);
    return p;
  }

  // Takes back a block of `bytes` that allocate() gave, for the next block of its size.
  void release(void* p, std::size_t bytes) noexcept {
    void*& free = free_[bytes / 16];
    *static_cast<void**>(p) = free;
    free = p;
    CGRAPH_AST_ARENA_POISON(p, bytes);
  }

private:
  static constexpr std::size_t chunk_bytes = 64 * 1024;

  void grow() {
    chunks_.reserve(chunks_.size() + 1);  // may throw: before the chunk is made
    auto* chunk = static_cast<char*>(::operator new(chunk_bytes, std::align_val_t{16}));
    chunks_.push_back(chunk);
    CGRAPH_AST_ARENA_POISON(chunk, chunk_bytes);
    next_ = chunk;
    end_ = chunk + chunk_bytes;
  }

  std::array<void*, largest / 16 + 1> free_{};  // by size / 16
  std::vector<void*> chunks_;
  char* next_ = nullptr;
  char* end_ = nullptr;
};

// The allocator of the tree's lists: the current arena's where one is, the heap's otherwise.
// Stateless and always equal, so a list moved from one place of the tree to another keeps its
// block, as std::vector's does.
template <typename T>
struct arena_allocator {
  using value_type = T;

  arena_allocator() noexcept = default;
  template <typename U>
  arena_allocator(const arena_allocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    static_assert(alignof(T) <= 16, "the header keeps 16-byte alignment only");
    if (n > (~std::size_t{0} - 32) / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = (n * sizeof(T) + sizeof(header) + 15) & ~std::size_t{15};
    arena* from = arena::current();
    void* block = from && bytes <= arena::largest ? from->allocate(bytes) : (from = nullptr, ::operator new(bytes));
    auto* h = ::new (block) header{from, bytes};
    return reinterpret_cast<T*>(h + 1);
  }

  void deallocate(T* p, std::size_t) noexcept {
    header* h = reinterpret_cast<header*>(p) - 1;
    if (!h->from) ::operator delete(h);
    else if (h->from == arena::current()) h->from->release(h, h->bytes);
    // else: the arena takes it back when it ends
  }

  friend bool operator==(arena_allocator, arena_allocator) noexcept { return true; }

private:
  struct alignas(16) header {
    arena* from;        // null: the heap's
    std::size_t bytes;  // the whole block's, header included
  };
};

// A list of the syntax tree.
template <typename T>
using list = std::vector<T, arena_allocator<T>>;

// An optional part of the tree held through a pointer (8 bytes), its block from the arena like
// a list's: for parts that are rare and would make every node that may have one larger inline
// (an empty list is 24 bytes). Copies copy the part; a moved-from box is empty.
template <typename T>
class box {
public:
  box() noexcept = default;
  box(const box& other) : at_(other.at_ ? make(*other.at_) : nullptr) {}
  box(box&& other) noexcept : at_(other.at_) { other.at_ = nullptr; }
  box& operator=(box other) noexcept {
    T* held = at_;
    at_ = other.at_;
    other.at_ = held;
    return *this;
  }
  ~box() { reset(); }

  template <typename... Args>
  T& emplace(Args&&... args) {
    T* made = make(static_cast<Args&&>(args)...);
    reset();
    at_ = made;
    return *at_;
  }
  void reset() noexcept {
    if (!at_) return;
    at_->~T();
    arena_allocator<T>{}.deallocate(at_, 1);
    at_ = nullptr;
  }

  explicit operator bool() const noexcept { return at_ != nullptr; }
  const T& operator*() const noexcept { return *at_; }
  T& operator*() noexcept { return *at_; }
  const T* operator->() const noexcept { return at_; }
  T* operator->() noexcept { return at_; }

private:
  template <typename... Args>
  static T* make(Args&&... args) {
    arena_allocator<T> allocator;
    T* at = allocator.allocate(1);
    try {
      ::new (static_cast<void*>(at)) T(static_cast<Args&&>(args)...);
    } catch (...) {
      allocator.deallocate(at, 1);
      throw;
    }
    return at;
  }

  T* at_ = nullptr;
};

}  // namespace cgraph::dsl::ast
