// The harness's count of live CPU tensor memory for the Go workers: the
// C++ and Python workers compile the same header.
#include "../../cxx/countalloc.h"
