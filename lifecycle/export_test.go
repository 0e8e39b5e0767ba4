package lifecycle

// Checking reports whether a health check is running.
func (s *Server) Checking() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.probe != nil
}
