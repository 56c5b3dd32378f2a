// The harness's count of live CPU tensor memory for the Go workers: the
// C++ and Python workers compile the same header. Go's build cache does
// not see a change to a header outside this folder: edit this file too
// when countalloc.h changes (it last did for gt_block_usable_size).
#include "../../cxx/countalloc.h"
