package distributed

import (
	"fmt"
	"math"
	"time"
)

// The C++ side takes ranks, sizes and tags as C ints and timeouts in whole
// milliseconds, where zero means no timeout at all to c10d. These checks
// keep a Go int from wrapping into another, valid rank (1<<32+1 is rank 1)
// and a timeout under a millisecond from becoming "wait forever"
// (issue #36).

// cMillis is d in milliseconds for c10d, rounded up: a positive d never
// becomes 0.
func cMillis(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}

// checkCInt reports a value that does not fit the C side's int.
func checkCInt(op, what string, v int) error {
	if v < math.MinInt32 || v > math.MaxInt32 {
		return fmt.Errorf("distributed: %s: %s %d does not fit in 32 bits", op, what, v)
	}
	return nil
}

// checkPeer reports a rank outside the group.
func (pg *ProcessGroup) checkPeer(op, what string, r int) error {
	if pg == nil {
		return nil // handle() reports the nil group
	}
	if r < 0 || r >= pg.size {
		return fmt.Errorf("distributed: %s: %s %d is not a rank of the group (world size %d)", op, what, r, pg.size)
	}
	return nil
}
