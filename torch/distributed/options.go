package distributed

import (
	"fmt"
	"time"
)

// Option is an optional (keyword) argument of InitProcessGroup, named With
// plus the keyword of torch.distributed.init_process_group it stands for,
// as the options of packages torch and nn are; leaving it out gives the
// default, read from torchrun's environment where PyTorch reads it:
//
//	distributed.InitProcessGroup(distributed.Gloo, distributed.WithRank(0), distributed.WithWorldSize(2))
//
// When an option is repeated, the last one wins. The zero Option is an
// error.
type Option struct {
	name  string
	n     int
	s     string
	d     time.Duration
	store *Store
}

// WithRank is rank: this process's rank, instead of $RANK.
func WithRank(r int) Option { return Option{name: "rank", n: r} }

// WithWorldSize is world_size: the number of processes, instead of
// $WORLD_SIZE.
func WithWorldSize(n int) Option { return Option{name: "world_size", n: n} }

// WithStore is store: rendezvous through s instead of a TCPStore at
// $MASTER_ADDR:$MASTER_PORT.
func WithStore(s *Store) Option { return Option{name: "store", store: s} }

// WithTimeout is timeout: the bound of every collective and of the
// rendezvous (default DefaultTimeout).
func WithTimeout(d time.Duration) Option { return Option{name: "timeout", d: d} }

// WithInterface binds Gloo to a network interface (as GLOO_SOCKET_IFNAME).
func WithInterface(name string) Option { return Option{name: "interface", s: name} }

// WithHostname binds Gloo to the address of a host name or IP.
func WithHostname(h string) Option { return Option{name: "hostname", s: h} }

// WithThreads sets Gloo's worker threads (default 2).
func WithThreads(n int) Option { return Option{name: "threads", n: n} }

// config is InitProcessGroup's options, applied.
type config struct {
	rank, size       int
	hasRank, hasSize bool
	store            *Store
	timeout          time.Duration
	iface, host      string
	threads          int
}

// newConfig applies opts to the defaults.
func newConfig(opts []Option) (config, error) {
	c := config{timeout: DefaultTimeout}
	for i, o := range opts {
		switch o.name {
		case "rank":
			c.rank, c.hasRank = o.n, true
		case "world_size":
			c.size, c.hasSize = o.n, true
		case "store":
			c.store = o.store
		case "timeout":
			c.timeout = o.d
		case "interface":
			c.iface = o.s
		case "hostname":
			c.host = o.s
		case "threads":
			c.threads = o.n
		case "":
			return config{}, fmt.Errorf("distributed: init_process_group: option %d is the zero Option (use the With functions)", i+1)
		default:
			return config{}, fmt.Errorf("distributed: init_process_group: unexpected option %s", o.name)
		}
	}
	return c, nil
}
