// Package schemacheck compiles the JSON schemas servers send and words validation errors
// for people and models; one compiler setup for the proxy's argument checks and for
// elicitation answers.
package schemacheck

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Compile compiles a JSON schema sent by a server; nil when it cannot be compiled
// (such a schema is not checked: the server decides).
func Compile(name string, raw []byte) *jsonschema.Schema {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	url := "mem:///" + name + ".json"
	if c.AddResource(url, doc) != nil {
		return nil
	}
	sch, _ := c.Compile(url)
	return sch
}

// noLoader refuses every external schema resource: a server's schema is checked on its
// own (its $refs into itself work), and nothing is read from disk or the network because
// a server said so.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external schema %s is not loaded", url)
}

// ErrorText flattens a validation error into one line naming each failing location.
func ErrorText(err error) string {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err.Error()
	}
	printer := message.NewPrinter(language.English)
	var parts []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := "/" + strings.Join(e.InstanceLocation, "/")
			parts = append(parts, fmt.Sprintf("at %s: %s", loc, e.ErrorKind.LocalizedString(printer)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(parts)
	if len(parts) > 6 {
		parts = append(parts[:6], fmt.Sprintf("and %d more", len(parts)-6))
	}
	return strings.Join(parts, "; ")
}
