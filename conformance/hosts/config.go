package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentbash/agentbash/conformance"
	"github.com/agentbash/agentbash/conformance/model"
	"github.com/agentbash/agentbash/spec"
	_ "github.com/agentbash/agentbash/spec/validate" // spec.Parse and Load check YAML specs against the JSON Schema
	"github.com/agentbash/agentbash/variants"
)

// Config is hosts.yaml: the host CLIs to check, with their pins.
type Config struct {
	// Pinned is the day the versions were the newest npm served.
	Pinned string `yaml:"pinned"`
	Hosts  []Host `yaml:"hosts"`

	dir string // the file's directory, which relative paths are under
}

// Host is one host CLI.
type Host struct {
	Name       string            `yaml:"name"`
	NPM        string            `yaml:"npm"`
	Bin        string            `yaml:"bin"`
	Script     string            `yaml:"script"`
	Spec       string            `yaml:"spec"`
	API        string            `yaml:"api"`
	Argv       []string          `yaml:"argv"`
	Files      map[string]string `yaml:"files"`
	Tools      map[string]string `yaml:"tools"`
	Skip       string            `yaml:"skip"`
	SkipReason string            `yaml:"skip_reason"`
	Baseline   string            `yaml:"baseline"`
	PerCase    bool              `yaml:"per_case"`
	TimeScale  float64           `yaml:"time_scale"`
	// Trusted sends the commands the spec's policies block as written (conformance.Trusted): for a host
	// that refuses them before it runs anything, whatever its approval mode, and policies whose blocked
	// commands are harmless.
	Trusted bool `yaml:"trusted"`
}

// Package is the npm package's name, without the version.
func (h Host) Package() string {
	at := strings.LastIndexByte(h.NPM, '@')
	if at <= 0 {
		return h.NPM
	}
	return h.NPM[:at]
}

// Version is the pinned version.
func (h Host) Version() string {
	at := strings.LastIndexByte(h.NPM, '@')
	if at <= 0 {
		return ""
	}
	return h.NPM[at+1:]
}

var pinnedVersion = regexp.MustCompile(`^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`)

// LoadConfig reads and checks hosts.yaml: every host has a name, a pinned npm version, a command, an API
// and a command line with {bin}; its spec, templates and baseline load; its skip compiles.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.dir = filepath.Dir(path)
	seen := map[string]bool{}
	for i, h := range c.Hosts {
		where := fmt.Sprintf("%s: hosts[%d] (%s)", path, i, h.Name)
		switch {
		case h.Name == "" || seen[h.Name]:
			return nil, fmt.Errorf("%s: a host needs a name of its own", where)
		case !pinnedVersion.MatchString(h.Version()):
			return nil, fmt.Errorf("%s: npm %q: pin an exact version (package@1.2.3)", where, h.NPM)
		case h.Bin == "" && h.Script == "":
			return nil, fmt.Errorf("%s: bin: the package's command is missing", where)
		case h.Bin != "" && h.Script != "":
			return nil, fmt.Errorf("%s: bin and script: a host is the package's command or a script, not both", where)
		case !strings.Contains(strings.Join(h.Argv, "\x00"), "{bin}"):
			return nil, fmt.Errorf("%s: argv must run {bin}", where)
		}
		seen[h.Name] = true
		if _, err := model.ParseAPI(h.API); err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		if h.Script != "" {
			if _, err := os.Stat(c.path(h.Script)); err != nil {
				return nil, fmt.Errorf("%s: script: %v", where, err)
			}
		}
		if _, err := c.Files(h); err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		if h.Skip != "" {
			if _, err := regexp.Compile(h.Skip); err != nil {
				return nil, fmt.Errorf("%s: skip: %v", where, err)
			}
			if strings.TrimSpace(h.SkipReason) == "" {
				return nil, fmt.Errorf("%s: skip needs a skip_reason", where)
			}
		}
		if h.Spec == "" {
			continue
		}
		v, err := c.Variant(h)
		if err != nil {
			return nil, fmt.Errorf("%s: spec: %v", where, err)
		}
		for from := range h.Tools {
			if v.Tool(from) == nil {
				return nil, fmt.Errorf("%s: tools: the spec has no tool %q", where, from)
			}
		}
		if h.Baseline != "" {
			if _, err := conformance.LoadBaseline(c.path(h.Baseline)); err != nil {
				return nil, fmt.Errorf("%s: %v", where, err)
			}
		}
	}
	return &c, nil
}

func (c *Config) path(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.dir, p)
}

// Variant loads a host's spec: a built-in variant's id, or a spec file.
func (c *Config) Variant(h Host) (*spec.Variant, error) {
	if strings.HasSuffix(h.Spec, ".yaml") {
		return spec.Load(c.path(h.Spec))
	}
	return variants.Spec(h.Spec)
}

// Files reads a host's templates.
func (c *Config) Files(h Host) ([]model.File, error) {
	var out []model.File
	for p, tmpl := range h.Files {
		b, err := os.ReadFile(c.path(tmpl))
		if err != nil {
			return nil, fmt.Errorf("files: %v", err)
		}
		out = append(out, model.File{Path: p, Content: string(b)})
	}
	return out, nil
}
