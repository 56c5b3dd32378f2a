package torch

/*
#cgo CFLAGS: -I${SRCDIR}/../cgotorch
#include <stdlib.h>
#include "cgotorch.h"
*/
import "C"

import (
	// The C++ implementation of cgotorch.h lives in package cgotorch.
	_ "github.com/gotorch/gotorch/cgotorch"
)
