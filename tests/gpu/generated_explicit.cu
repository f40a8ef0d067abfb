// The example graphs as generated C++ in the explicit mode (see generated_examples.inc).
#define GENERATED_EXAMPLES generated_examples_explicit
#define MAKE_STRESS make_stress_explicit
#define MAKE_LONG_CHAIN make_long_chain_explicit
#define RUN_MIXED_TYPES run_mixed_types_explicit
#define RUN_BIG_SHARED run_big_shared_explicit
#define RUN_STRUCTS run_structs_explicit
#define RUN_V2_CHAIN run_v2_chain_explicit
#define RUN_V2_COND_DEFAULT run_v2_cond_default_explicit
#define RUN_V2_EVENTS run_v2_events_explicit
#define RUN_V2_SCRATCH run_v2_scratch_explicit
#define RUN_V2_ATTRIBUTES run_v2_attributes_explicit
#define RUN_V2_PDL run_v2_pdl_explicit
#define RUN_V2_CALLER_LOOP run_v2_caller_loop_explicit
#define MAKE_TABLE_CHAIN make_table_chain_explicit
#define BUILD_TABLE_CHAIN build_table_chain_explicit
#define RUN_DP_RANK run_dp_rank_explicit
#define RUN_DP_TWO run_dp_two_explicit
#include "generated_examples.inc"
