package torch

// LiveHooks is how many hooks' Go functions are not yet given back:
// registered and neither detached from their tensor nor freed with it.
func LiveHooks() int64 { return liveHooks.Load() }
