package fake

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/zot-mcp/mcp-bridge/testkit/fakemcp/record"
)

// maxBigBytes caps the big tool's output.
const maxBigBytes = 256 << 20

// defaultTools returns the tools present unless -no-default-tools is given.
func defaultTools(o *options, rec *recorder, echoTag string) []server.ServerTool {
	return []server.ServerTool{
		{
			Tool: mcp.NewTool("echo",
				mcp.WithDescription("Echo the given text back."),
				mcp.WithString("text", mcp.Required(), mcp.Description("text to echo")),
				mcp.WithReadOnlyHintAnnotation(true),
			),
			Handler: func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				text, err := req.RequireString("text")
				if err != nil {
					return mcp.NewToolResultError(err.Error()), nil
				}
				if echoTag != "" {
					text = echoTag + " " + text
				}
				return mcp.NewToolResultText(text), nil
			},
		},
		{
			Tool: mcp.NewTool("add",
				mcp.WithDescription("Add two numbers; returns the sum as text and as structured content."),
				mcp.WithNumber("a", mcp.Required(), mcp.Description("first addend")),
				mcp.WithNumber("b", mcp.Required(), mcp.Description("second addend")),
				mcp.WithRawOutputSchema([]byte(`{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}`)),
			),
			Handler: func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				sum := req.GetFloat("a", 0) + req.GetFloat("b", 0)
				return mcp.NewToolResultStructured(map[string]any{"sum": sum}, strconv.FormatFloat(sum, 'f', -1, 64)), nil
			},
		},
		{
			Tool: mcp.NewTool("image", mcp.WithDescription("Return a tiny PNG image.")),
			Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewImageContent(tinyPNG, "image/png")}}, nil
			},
		},
		{
			Tool: mcp.NewTool("big",
				mcp.WithDescription("Return one text content of the given number of 'x' bytes."),
				mcp.WithInteger("bytes", mcp.Required(), mcp.Description("size of the text in bytes")),
			),
			Handler: func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				n := req.GetInt("bytes", 0)
				if n < 0 || n > maxBigBytes {
					return mcp.NewToolResultErrorf("bytes must be in [0, %d]", maxBigBytes), nil
				}
				return mcp.NewToolResultText(strings.Repeat("x", n)), nil
			},
		},
		{
			Tool: mcp.NewTool("slow",
				mcp.WithDescription("Wait the given number of milliseconds, then say done."),
				mcp.WithInteger("ms", mcp.Required(), mcp.Description("milliseconds to wait")),
			),
			Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				t := time.NewTimer(time.Duration(req.GetInt("ms", 0)) * time.Millisecond)
				defer t.Stop()
				select {
				case <-t.C:
					return mcp.NewToolResultText("done"), nil
				case <-ctx.Done():
					rec.write(record.Line{Method: "fake/slow_cancelled", Tool: "slow"})
					return nil, fmt.Errorf("slow: %w", ctx.Err())
				}
			},
		},
		{
			Tool: mcp.NewTool("fail", mcp.WithDescription("Always fail with a tool error.")),
			Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultError("it failed"), nil
			},
		},
		{
			Tool: mcp.NewTool("env",
				mcp.WithDescription("Return the value of an environment variable (empty if unset)."),
				mcp.WithString("name", mcp.Required(), mcp.Description("variable name")),
			),
			Handler: func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText(o.env.Getenv(req.GetString("name", ""))), nil
			},
		},
		{
			Tool: mcp.NewTool("cwd", mcp.WithDescription("Return the server's working directory.")),
			Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText(o.env.Dir), nil
			},
		},
		{
			Tool: mcp.NewTool("pid", mcp.WithDescription("Return the server's process id.")),
			Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText(strconv.Itoa(o.env.PID)), nil
			},
		},
		{
			Tool: mcp.NewTool("audio", mcp.WithDescription("Return a tiny WAV audio clip.")),
			Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewAudioContent(tinyWAV, "audio/wav")}}, nil
			},
		},
		{
			Tool: mcp.NewTool("resource", mcp.WithDescription("Return an embedded text resource.")),
			Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				res := mcp.NewEmbeddedResource(mcp.TextResourceContents{
					URI:      "fake://resource/hello.txt",
					MIMEType: "text/plain",
					Text:     "hello from a resource",
				})
				return &mcp.CallToolResult{Content: []mcp.Content{res}}, nil
			},
		},
		{
			Tool: mcp.NewTool("link", mcp.WithDescription("Return a resource link.")),
			Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				link := mcp.NewResourceLink("fake://resource/linked.txt", "linked.txt", "a linked resource", "text/plain")
				return &mcp.CallToolResult{Content: []mcp.Content{link}}, nil
			},
		},
		{
			Tool: mcp.NewTool("kebab-case.tool", mcp.WithDescription("A tool whose name has a dash and a dot.")),
			Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("ok"), nil
			},
		},
	}
}

// generatedTools returns n tools gen_0000, gen_0001, ... each with a distinct
// description and a small object schema.
func generatedTools(n int) []server.ServerTool {
	verbs := []string{"count", "sort", "hash", "reverse", "measure", "split", "join", "scan"}
	tools := make([]server.ServerTool, 0, n)
	for i := range n {
		name := fmt.Sprintf("gen_%04d", i)
		tools = append(tools, server.ServerTool{
			Tool: mcp.NewTool(name,
				mcp.WithDescription(fmt.Sprintf("Generated tool #%d: pretends to %s its input.", i, verbs[i%len(verbs)])),
				mcp.WithString("value", mcp.Required(), mcp.Description("input value")),
				mcp.WithInteger("repeat", mcp.Description("optional repeat count")),
			),
			Handler: func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText(name + ": " + req.GetString("value", "")), nil
			},
		})
	}
	return tools
}

// lateTool is the tool added by -list-changed-after and -list-changed-on-call.
func lateTool() (mcp.Tool, server.ToolHandlerFunc) {
	return mcp.NewTool("late_tool", mcp.WithDescription("A tool added after initialization.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("late"), nil
		}
}

// tinyPNG is a base64 1x1 PNG; tinyWAV a base64 WAV with 8 silent samples.
var tinyPNG, tinyWAV = mustPNG(), mustWAV()

func mustPNG() string {
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

func mustWAV() string {
	const (
		sampleRate = 8000
		samples    = 8
	)
	var buf bytes.Buffer
	w := func(v any) {
		if err := binary.Write(&buf, binary.LittleEndian, v); err != nil {
			panic(errors.New("wav: " + err.Error()))
		}
	}
	buf.WriteString("RIFF")
	w(uint32(36 + samples))
	buf.WriteString("WAVEfmt ")
	w(uint32(16))         // fmt chunk size
	w(uint16(1))          // PCM
	w(uint16(1))          // mono
	w(uint32(sampleRate)) // sample rate
	w(uint32(sampleRate)) // byte rate (8-bit mono)
	w(uint16(1))          // block align
	w(uint16(8))          // bits per sample
	buf.WriteString("data")
	w(uint32(samples))
	buf.Write(bytes.Repeat([]byte{128}, samples)) // 8-bit silence
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}
