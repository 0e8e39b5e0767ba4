package interact

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/zot-mcp/mcp-bridge/internal/safetext"
	"github.com/zot-mcp/mcp-bridge/internal/schemacheck"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
	"github.com/zot-mcp/mcp-bridge/internal/textdist"
)

// Elicitation is one question a server asked during a call (MCP elicitation/create), in
// the form the bridge shows it: numbered, with the server's message and, in form mode,
// each requested field.
type Elicitation struct {
	// N numbers the request for /mcp answer|accept|decline|cancel <n>.
	N       int
	Server  string
	Message string
	// Mode is mcp.ElicitationModeForm or mcp.ElicitationModeURL.
	Mode string
	// URL (url mode) has passed the checkURL given to NewElicitation.
	URL    string
	Fields []Field

	schemaRaw []byte
	schema    *jsonschema.Schema // nil: not compilable, the server checks
}

// Field is one property of a form-mode request.
type Field struct {
	Name        string
	Title       string
	Description string
	// Type is the JSON type: string, number, integer, boolean or array (a multi-select).
	Type   string
	Format string
	// Choices are the allowed values of an enum (or of the items of a multi-select), with
	// their display titles where the server gave them.
	Choices []Choice
	// Default is the schema's default (SEP-1034); nil when there is none.
	Default  any
	Required bool
}

// Choice is one allowed value of an enum field.
type Choice struct {
	Value string
	Title string
}

// fieldSchema is what the bridge reads of one property of a requested schema.
type fieldSchema struct {
	Type        string          `json:"type"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Format      string          `json:"format"`
	Enum        []any           `json:"enum"`
	EnumNames   []string        `json:"enumNames"`
	OneOf       []constChoice   `json:"oneOf"`
	AnyOf       []constChoice   `json:"anyOf"`
	Items       *fieldSchema    `json:"items"`
	Default     json.RawMessage `json:"default"`
}

type constChoice struct {
	Const any    `json:"const"`
	Title string `json:"title"`
}

// NewElicitation reads a request's parameters. Form mode needs an object schema; url mode
// a URL that checkURL accepts and that shows as it is. The server's words (the message,
// the fields' titles and descriptions) are kept sanitized (internal/safetext): they are
// shown to the user in zot and on the CLI's terminal.
func NewElicitation(server string, p mcp.ElicitationParams, checkURL func(string) error) (*Elicitation, error) {
	q := &Elicitation{Server: server, Message: strings.TrimSpace(safetext.Sanitize(p.Message)), Mode: p.Mode}
	if q.Mode == "" {
		q.Mode = mcp.ElicitationModeForm
	}
	switch q.Mode {
	case mcp.ElicitationModeURL:
		if err := CheckURL(p.URL, checkURL); err != nil {
			return nil, err
		}
		q.URL = p.URL
		return q, nil
	case mcp.ElicitationModeForm:
	default:
		return nil, fmt.Errorf("unknown elicitation mode %q", p.Mode)
	}
	raw, err := json.Marshal(p.RequestedSchema)
	if err != nil {
		return nil, fmt.Errorf("requested schema: %w", err)
	}
	var s struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(raw, &s); err != nil || s.Type != "object" {
		return nil, errors.New("the requested schema is not a JSON object schema")
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	// The server's property order is lost in mcp-go's decoding: required fields come
	// first, then by name.
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		if required[names[i]] != required[names[j]] {
			return required[names[i]]
		}
		return names[i] < names[j]
	})
	for _, name := range names {
		var fs fieldSchema
		if err := json.Unmarshal(s.Properties[name], &fs); err != nil {
			return nil, fmt.Errorf("requested schema: property %q: %v", name, err)
		}
		q.Fields = append(q.Fields, newField(name, fs, required[name]))
	}
	q.schemaRaw = raw
	q.schema = schemacheck.Compile("elicitation", raw)
	return q, nil
}

// errHiddenURL refuses a URL that does not show as it is.
var errHiddenURL = errors.New("the URL carries control or invisible characters, so the user could not see where it leads")

// CheckURL is checkURL's verdict on a URL a server wants the user to open (a question's,
// or one a "URL elicitation required" error lists), after it is refused when it carries a
// character that Sanitize drops: the user could not see where it leads.
func CheckURL(url string, checkURL func(string) error) error {
	if !safetext.Clean(url) {
		return errHiddenURL
	}
	return checkURL(url)
}

func newField(name string, fs fieldSchema, required bool) Field {
	f := Field{Name: name, Title: safetext.Sanitize(fs.Title), Description: safetext.Sanitize(fs.Description), Type: fs.Type, Format: fs.Format, Required: required}
	src := fs
	if fs.Type == "array" && fs.Items != nil {
		src = *fs.Items
	}
	for i, v := range src.Enum {
		c := Choice{Value: fmt.Sprint(v)}
		if i < len(src.EnumNames) {
			c.Title = safetext.Sanitize(src.EnumNames[i])
		}
		f.Choices = append(f.Choices, c)
	}
	for _, o := range append(src.OneOf, src.AnyOf...) {
		if o.Const != nil {
			f.Choices = append(f.Choices, Choice{Value: fmt.Sprint(o.Const), Title: safetext.Sanitize(o.Title)})
		}
	}
	if len(fs.Default) > 0 {
		var d any
		if json.Unmarshal(fs.Default, &d) == nil {
			f.Default = d
		}
	}
	return f
}

// Defaults are the values a form starts with: each field's schema default.
func (q *Elicitation) Defaults() map[string]any {
	out := map[string]any{}
	for _, f := range q.Fields {
		if f.Default != nil {
			out[f.Name] = f.Default
		}
	}
	return out
}

// Field returns the field of that name.
func (q *Elicitation) Field(name string) (Field, bool) {
	for _, f := range q.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// Answer builds the content of an accept from the user's text values (field name → text),
// starting from the defaults, and validates it against the requested schema. The error
// names every problem and the fields, so the user can answer again.
func (q *Elicitation) Answer(values map[string]string) (map[string]any, error) {
	content := q.Defaults()
	var problems []string
	names := make([]string, 0, len(values))
	for k := range values {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		f, ok := q.Field(name)
		if !ok {
			problems = append(problems, fmt.Sprintf("no field %q.%s", name, textdist.Suggest(name, q.FieldNames())))
			continue
		}
		v, err := f.Parse(values[name])
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		content[name] = v
	}
	if len(problems) == 0 {
		if msg := q.validate(content); msg != "" {
			problems = append(problems, msg)
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s (fields: %s)", strings.Join(problems, "; "), strings.Join(q.FieldNames(), ", "))
	}
	return content, nil
}

// FieldNames lists the fields by name, in the order they are asked.
func (q *Elicitation) FieldNames() []string {
	out := make([]string, len(q.Fields))
	for i, f := range q.Fields {
		out[i] = f.Name
	}
	return out
}

// validate checks content against the requested schema; "" when it passes (or when the
// schema cannot be compiled, which leaves the check to the server).
func (q *Elicitation) validate(content map[string]any) string {
	if q.schema == nil {
		return ""
	}
	raw, err := json.Marshal(content)
	if err != nil {
		return err.Error()
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err.Error()
	}
	if err := q.schema.Validate(inst); err != nil {
		return schemacheck.ErrorText(err)
	}
	return ""
}

// Parse converts the user's text for the field into a JSON value of the field's type. An
// enum value may be given by its value or its title; a multi-select as a comma-separated
// list.
func (f Field) Parse(text string) (any, error) {
	text = strings.TrimSpace(text)
	switch f.Type {
	case "boolean":
		switch strings.ToLower(text) {
		case "true", "yes", "y", "on", "1":
			return true, nil
		case "false", "no", "n", "off", "0":
			return false, nil
		}
		return nil, fmt.Errorf("%q is not a yes/no value (true or false)", text)
	case "integer":
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a whole number", text)
		}
		return n, nil
	case "number":
		n, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", text)
		}
		return n, nil
	case "array":
		var out []any
		for _, part := range strings.Split(text, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, f.choice(part))
			}
		}
		if out == nil {
			out = []any{}
		}
		return out, nil
	}
	return f.choice(text), nil
}

// choice maps a title the user typed to its enum value; anything else stays as typed (the
// schema check reports a value outside the enum).
func (f Field) choice(text string) string {
	for _, c := range f.Choices {
		if c.Value == text {
			return text
		}
	}
	for _, c := range f.Choices {
		if c.Title != "" && strings.EqualFold(c.Title, text) {
			return c.Value
		}
	}
	return text
}

// Describe is the field's one-line description for notes: Summary and the default.
func (f Field) Describe() string {
	if f.Default == nil {
		return f.Summary()
	}
	return f.Summary() + "; default: " + safetext.Escape(f.DefaultText())
}

// Summary is the field's one-line description without its default (a prompt shows the
// default as the value Enter keeps): name, type, required, description, allowed values.
// The name and the values are the server's and are typed back as they are, so a hidden
// character in them is shown escaped.
func (f Field) Summary() string {
	var sb strings.Builder
	sb.WriteString(safetext.Escape(f.Name) + " (" + f.typeText())
	if f.Required {
		sb.WriteString(", required")
	}
	sb.WriteString(")")
	d := f.Description
	if strings.TrimSpace(d) == "" {
		d = f.Title
	}
	if strings.TrimSpace(d) != "" {
		sb.WriteString(": " + textcut.FirstLine(d, 160))
	}
	if len(f.Choices) > 0 {
		var cs []string
		for _, c := range f.Choices {
			if c.Title != "" && c.Title != c.Value {
				cs = append(cs, safetext.Escape(c.Value)+" ("+c.Title+")")
			} else {
				cs = append(cs, safetext.Escape(c.Value))
			}
		}
		sb.WriteString("; one of: " + strings.Join(cs, ", "))
	}
	return sb.String()
}

func (f Field) typeText() string {
	switch {
	case f.Type == "array":
		return "list, comma-separated"
	case f.Format != "":
		return f.Type + ", " + f.Format
	case f.Type == "":
		return "value"
	}
	return f.Type
}

// DefaultText is the default as the user would type it ("" when there is none).
func (f Field) DefaultText() string {
	switch d := f.Default.(type) {
	case nil:
		return ""
	case string:
		return d
	case []any:
		parts := make([]string, len(d))
		for i, x := range d {
			parts[i] = fmt.Sprint(x)
		}
		return strings.Join(parts, ",")
	case float64:
		return strconv.FormatFloat(d, 'f', -1, 64)
	}
	return fmt.Sprint(f.Default)
}

// NoteText is the note that shows a question and how to answer it.
func (q *Elicitation) NoteText() string {
	var sb strings.Builder
	n := strconv.Itoa(q.N)
	if q.Mode == mcp.ElicitationModeURL {
		fmt.Fprintf(&sb, "MCP server %q asks you to open a URL (request %s): %s\n  %s\n", q.Server, n, cmp.Or(q.Message, "(no reason given)"), q.URL)
		fmt.Fprintf(&sb, "Open it: /mcp accept %s · refuse: /mcp decline %s · dismiss: /mcp cancel %s", n, n, n)
		return sb.String()
	}
	fmt.Fprintf(&sb, "MCP server %q asks (request %s): %s\n", q.Server, n, cmp.Or(q.Message, "(no message)"))
	for i, f := range q.Fields {
		fmt.Fprintf(&sb, "  %d. %s\n", i+1, f.Describe())
	}
	example := "field=value"
	for _, f := range q.Fields {
		if f.Required {
			example = f.Name + "=…"
			break
		}
	}
	fmt.Fprintf(&sb, "Answer: /mcp answer %s %s … (unset fields keep their defaults) · /mcp accept %s (defaults) · /mcp decline %s · /mcp cancel %s", n, example, n, n, n)
	return sb.String()
}
