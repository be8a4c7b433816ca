//go:build !linux

package model

// Tree lists the host's pid (its descendants are not looked up on this system).
func (h *Host) Tree() []int { return []int{h.Pid()} }
