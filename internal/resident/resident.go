// Package resident gives the pages of the bridge's own program file (its code and
// read-only data) back to the page cache once the bridge is idle. Starting runs through
// most of the program once (package initialisation, the startup path, the index build),
// which leaves most of its code and tables resident though an idle bridge, and every call
// it serves, touches a small part of them. The pages are clean copies of the file: the
// kernel maps each again from the page cache on its next use, so nothing is lost but a
// minor fault.
package resident

// Program is what DropProgram found and released.
type Program struct {
	Mappings int   // read-only mappings of the program file released
	Bytes    int64 // their size (what was resident of it is at most this)
}
