package trust

// Approved reports whether server, with the given fingerprint, is approved for project
// (a directory; it is normalised with ProjectKey).
func (f *File) Approved(project, server, fingerprint string) bool {
	if f == nil || fingerprint == "" {
		return false
	}
	a, ok := f.Projects[ProjectKey(project)][server]
	return ok && a.Fingerprint == fingerprint
}
