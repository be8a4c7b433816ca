package gen

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/agentbash/agentbash/spec"
	_ "github.com/agentbash/agentbash/spec/validate" // spec.Parse and Load check YAML specs against the JSON Schema
)

// FileConfig says what GenerateFile reads and writes.
type FileConfig struct {
	// Spec is the spec file (YAML).
	Spec string
	// Out is the Go file to write, or "-" for the writer GenerateFile is given.
	Out string
	// Package is the Go package name (default: the variant id without its "-")
	Package string
	// Check writes nothing: GenerateFile fails (ErrStale) when Out is not what it would write.
	Check bool
	// Load reads the spec (default spec.Load). `agentbash gen` passes what `agentbash spec validate`
	// does, which also runs the policies' examples, so that the two accept the same specs.
	Load func(path string) (*spec.Variant, error)
}

// ErrStale is the error (wrapped) of a Check whose output file is missing or differs.
var ErrStale = errors.New("stale")

// GenerateFile is what a generator command does (cmd/agentbash-gen, agentbash gen): it loads cfg.Spec
// (spec.Load: a spec that does not validate fails with its positioned errors), names it by its path
// relative to the output's directory (the header, and the compiled spec's File, so the output does not
// depend on the directory the command runs in), generates the adapter, and writes cfg.Out through a
// temporary file, unless it holds these bytes already (then its modification time is left alone).
func GenerateFile(cfg FileConfig, stdout io.Writer) error {
	if cfg.Spec == "" || cfg.Out == "" {
		return errors.New("gen: give a spec file and an output file")
	}
	load := cfg.Load
	if load == nil {
		load = spec.Load
	}
	v, err := load(cfg.Spec)
	if err != nil {
		return err
	}
	name := filepath.Base(cfg.Spec)
	if cfg.Out != "-" {
		if name, err = relSpec(cfg.Spec, cfg.Out); err != nil {
			return err
		}
	}
	v.File = name
	code, err := Generate(v, Config{Package: cfg.Package, SpecFile: name})
	if err != nil {
		return err
	}
	if cfg.Out == "-" {
		_, err := stdout.Write(code)
		return err
	}
	old, err := os.ReadFile(cfg.Out)
	same := err == nil && bytes.Equal(old, code)
	switch {
	case cfg.Check && !same:
		return fmt.Errorf("%s is %w", cfg.Out, ErrStale)
	case cfg.Check, same:
		return nil
	}
	return writeFile(cfg.Out, code)
}

// relSpec returns the spec's path relative to the output's directory, with forward slashes.
func relSpec(specFile, out string) (string, error) {
	absSpec, err := filepath.Abs(specFile)
	if err != nil {
		return "", err
	}
	absOut, err := filepath.Abs(out)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(filepath.Dir(absOut), absSpec)
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(rel), nil
}

// writeFile replaces path with data through a temporary file in the same directory.
func writeFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
