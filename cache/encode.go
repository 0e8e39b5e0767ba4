package cache

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// encodeFile renders f as the cache file: indented JSON (two spaces) ending
// in a newline, except that every schema is written compact on one line.
// Keeping schemas compact makes the file smaller and lets Read hand them out
// as they are, without compacting them again.
func encodeFile(f *File) ([]byte, error) {
	size := 64
	size += entriesSize(f.Servers)
	for project, m := range f.Projects {
		size += len(project) + entriesSize(m)
	}
	var b bytes.Buffer
	b.Grow(size)

	b.WriteString("{\n  \"version\": ")
	b.WriteString(strconv.Itoa(f.Version))
	b.WriteString(",\n  \"servers\": ")
	if err := encodeEntries(&b, f.Servers, "  "); err != nil {
		return nil, err
	}
	// Written only when there is one, so a file without private listings reads exactly
	// as before.
	projects := make([]string, 0, len(f.Projects))
	for project, m := range f.Projects {
		if len(m) > 0 {
			projects = append(projects, project)
		}
	}
	if len(projects) > 0 {
		slices.Sort(projects)
		b.WriteString(",\n  \"projects\": {")
		for i, project := range projects {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("\n    ")
			writeString(&b, project)
			b.WriteString(": ")
			if err := encodeEntries(&b, f.Projects[project], "    "); err != nil {
				return nil, err
			}
		}
		b.WriteString("\n  }")
	}
	b.WriteString("\n}\n")
	return b.Bytes(), nil
}

// entriesSize estimates the encoded size of entries.
func entriesSize(entries map[string]*Server) int {
	size := 0
	for name, e := range entries {
		if e == nil {
			continue
		}
		size += len(name) + len(e.Instructions) + 256
		for i := range e.Tools {
			t := &e.Tools[i]
			size += len(t.Name) + len(t.Title) + len(t.Description) +
				len(t.InputSchema) + len(t.OutputSchema) + 256
		}
	}
	return size
}

// encodeEntries writes entries as a JSON object by server name, sorted, its closing
// brace indented by pad.
func encodeEntries(b *bytes.Buffer, entries map[string]*Server, pad string) error {
	b.WriteByte('{')
	names := make([]string, 0, len(entries))
	for name, e := range entries {
		if e != nil {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for i, name := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n" + pad + "  ")
		writeString(b, name)
		b.WriteString(": ")
		if err := encodeEntry(b, entries[name], pad+"  "); err != nil {
			return err
		}
	}
	if len(names) > 0 {
		b.WriteString("\n" + pad)
	}
	b.WriteByte('}')
	return nil
}

// encodeEntry writes e, its closing brace indented by pad.
func encodeEntry(b *bytes.Buffer, e *Server, pad string) error {
	in := "\n" + pad + "  "
	b.WriteString("{" + in + `"fingerprint": `)
	writeString(b, e.Fingerprint)
	if e.Transport != "" {
		b.WriteString("," + in + `"transport": `)
		writeString(b, e.Transport)
	}
	if e.Protocol != "" {
		b.WriteString("," + in + `"protocol": `)
		writeString(b, e.Protocol)
	}
	if e.ProtocolKey != "" {
		b.WriteString("," + in + `"protocolKey": `)
		writeString(b, e.ProtocolKey)
	}
	if e.ServerName != "" {
		b.WriteString("," + in + `"serverName": `)
		writeString(b, e.ServerName)
	}
	if e.Instructions != "" {
		b.WriteString("," + in + `"instructions": `)
		writeString(b, e.Instructions)
	}
	ts, err := e.UpdatedAt.MarshalJSON()
	if err != nil {
		return err
	}
	b.WriteString("," + in + `"updatedAt": `)
	b.Write(ts)
	if !e.RefreshDue.IsZero() {
		due, err := e.RefreshDue.UTC().MarshalJSON()
		if err != nil {
			return err
		}
		b.WriteString("," + in + `"refreshDue": `)
		b.Write(due)
	}
	b.WriteString("," + in + `"tools": [`)
	for i := range e.Tools {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := encodeTool(b, &e.Tools[i], pad+"    "); err != nil {
			return err
		}
	}
	if len(e.Tools) > 0 {
		b.WriteString(in)
	}
	b.WriteString("]")
	if err := encodeExtras(b, e, in); err != nil {
		return err
	}
	b.WriteString("\n" + pad + "}")
	return nil
}

// encodeTool writes t, its braces indented by pad.
func encodeTool(b *bytes.Buffer, t *Tool, pad string) error {
	in := "\n" + pad + "  "
	b.WriteString("\n" + pad + "{" + in + `"name": `)
	writeString(b, t.Name)
	if t.Title != "" {
		b.WriteString("," + in + `"title": `)
		writeString(b, t.Title)
	}
	if t.Description != "" {
		b.WriteString("," + in + `"description": `)
		writeString(b, t.Description)
	}
	b.WriteString("," + in + `"inputSchema": `)
	if len(t.InputSchema) == 0 || json.Compact(b, t.InputSchema) != nil {
		b.WriteString(emptyObjectSchema)
	}
	if len(t.OutputSchema) > 0 && json.Valid(t.OutputSchema) {
		b.WriteString("," + in + `"outputSchema": `)
		if err := json.Compact(b, t.OutputSchema); err != nil {
			return err
		}
	}
	if t.Annotations != nil {
		a, err := json.Marshal(t.Annotations)
		if err != nil {
			return err
		}
		b.WriteString("," + in + `"annotations": `)
		b.Write(a)
	}
	b.WriteString("\n" + pad + "}")
	return nil
}

// writeString writes s as a JSON string. Unlike encoding/json it does not
// escape <, > and &, which keeps descriptions readable and cheap to decode.
// Invalid UTF-8 is replaced by U+FFFD.
func writeString(b *bytes.Buffer, s string) {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b.WriteString(s[start:i])
		switch c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteString(`\u00`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		}
		start = i + 1
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}
