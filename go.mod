module github.com/zot-mcp/mcp-bridge

go 1.26.8

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/goccy/go-json v0.12.0
	github.com/gofrs/flock v0.13.2
	github.com/mark3labs/mcp-go v1.2.1
	github.com/rs/zerolog v1.35.1
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2
	github.com/tailscale/hujson v0.0.0-20260727124030-b80ff77dac4f
	golang.org/x/sys v0.49.0
	golang.org/x/text v0.14.0
)

require (
	github.com/google/jsonschema-go v0.4.2 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
)
