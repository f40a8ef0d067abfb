// The example graphs as generated C++ in the capture mode (see generated_examples.inc).
#define GENERATED_EXAMPLES generated_examples_capture
#define MAKE_STRESS make_stress_capture
#define MAKE_LONG_CHAIN make_long_chain_capture
#define MAKE_TABLE_CHAIN make_table_chain_capture
#define BUILD_TABLE_CHAIN build_table_chain_capture
#define RUN_MIXED_TYPES run_mixed_types_capture
#define RUN_BIG_SHARED run_big_shared_capture
#define RUN_STRUCTS run_structs_capture
#define RUN_V2_CHAIN run_v2_chain_capture
#define RUN_V2_COND_DEFAULT run_v2_cond_default_capture
#define RUN_V2_EVENTS run_v2_events_capture
#define RUN_V2_SCRATCH run_v2_scratch_capture
#define RUN_V2_ATTRIBUTES run_v2_attributes_capture
#define RUN_V2_PDL run_v2_pdl_capture
#define RUN_V2_CALLER_LOOP run_v2_caller_loop_capture
#define RUN_DP_RANK run_dp_rank_capture
#define RUN_DP_TWO run_dp_two_capture
#include "generated_examples.inc"
