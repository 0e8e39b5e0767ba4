package record

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRead: whole lines are read, a line still being written is not, a missing file is
// empty, and the id helpers compact what the server wrote.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rec")
	if lines, err := Read(path); err != nil || lines != nil {
		t.Fatalf("missing file: %v, %v", lines, err)
	}
	data := `{"method":"tools/call","id": 3,"tool":"echo"}` + "\n" +
		`{"method":"notifications/cancelled","params":{"requestId": "a"}}` + "\n" +
		`{"method":"partial`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	lines, err := Read(path)
	if err != nil || len(lines) != 2 {
		t.Fatalf("Read = %+v, %v; want 2 lines", lines, err)
	}
	if lines[0].Tool != "echo" || lines[0].IDString() != "3" || lines[1].RequestID() != `"a"` || lines[1].IDString() != "" {
		t.Fatalf("lines = %+v", lines)
	}
	if err := os.WriteFile(path, []byte("not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); err == nil {
		t.Fatal("a malformed line read without error")
	}
}
