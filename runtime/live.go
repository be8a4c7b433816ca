package runtime

// Held lists what closing the engine would end or lose: the ids of its background shells and of its
// sessions (running, or finished and not yet reported), and how many of them still run.
func (e *Engine) Held() (shells, sessions []string, running int) {
	e.bg.mu.Lock()
	for id, sh := range e.bg.shells {
		shells = append(shells, id)
		select {
		case <-sh.done:
		default:
			running++
		}
	}
	e.bg.mu.Unlock()
	e.sess.mu.Lock()
	for id, s := range e.sess.byID {
		sessions = append(sessions, id)
		if !s.exited() {
			running++
		}
	}
	e.sess.mu.Unlock()
	return shells, sessions, running
}
