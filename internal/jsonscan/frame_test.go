package jsonscan

import "testing"

// TestScanHead: the start of an object gives the id and method of the members it holds
// whole, and names the member it is cut inside; a value reaching the end of the start
// is cut even when it decodes.
func TestScanHead(t *testing.T) {
	tests := []struct {
		name, head, id, method, cut string
	}{
		{"whole", `{"jsonrpc":"2.0","id":7,"method":"x","params":{}}`, `7`, `"x"`, ""},
		{"cut in the result", `{"jsonrpc":"2.0","id":"a","result":{"text":"xx`, `"a"`, "", "result"},
		{"cut in params before the method", `{"params":{"data":"xx`, "", "", "params"},
		{"a number at the end is cut", `{"id":42`, "", "", "id"},
		{"null id is none", `{"id":null,"error":{}}`, "", "", ""},
		{"not an object", `[1,2]`, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := ScanHead([]byte(tt.head))
			if string(h.ID) != tt.id || string(h.Method) != tt.method || h.Cut != tt.cut {
				t.Fatalf("ScanHead = id %s method %s cut %q, want %s %s %q", h.ID, h.Method, h.Cut, tt.id, tt.method, tt.cut)
			}
		})
	}
}

// TestTailMember: a member among the scalars an object ends with is found, one behind a
// value that ends in a bracket is not (that value may have begun in the discarded
// bytes), and escaped quotes do not end a string.
func TestTailMember(t *testing.T) {
	tests := []struct {
		name, tail, key, want string
		ok                    bool
	}{
		{"last member", `xx"}]},"id":12}`, `"id"`, `12`, true},
		{"behind a scalar", `xx"}]},"id":"q","jsonrpc":"2.0"}`, `"id"`, `"q"`, true},
		{"escaped quote in a string", `,"method":"a\"b","x":1}`, `"method"`, `"a\"b"`, true},
		{"behind a bracket", `,"id":3,"result":{"a":1}}`, `"id"`, "", false},
		{"not the end of an object", `,"id":3`, `"id"`, "", false},
		{"absent", `,"a":true,"b":null}`, `"id"`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, ok := TailMember([]byte(tt.tail), tt.key)
			if ok != tt.ok || string(v) != tt.want {
				t.Fatalf("TailMember = %s, %v; want %s, %v", v, ok, tt.want, tt.ok)
			}
		})
	}
}
