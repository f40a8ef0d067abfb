// The example graphs as generated C++ in the capture mode (see generated_examples.inc).
#define GENERATED_EXAMPLES generated_examples_capture
#define MAKE_STRESS make_stress_capture
#include "generated_examples.inc"
