package main

import (
	"flag"
	"fmt"
	"io"
	goruntime "runtime"
	"runtime/debug"

	"github.com/agentbash/agentbash/internal/genversion"
)

// modulePath is agentbash's module path.
const modulePath = "github.com/agentbash/agentbash"

// cmdVersion prints the module version and the VCS revision the binary was built from, from its build
// information: "(devel)" for a build inside a checkout, the version for `go install ...@v1.2.3`, and an
// unknown revision when the build recorded none (go build -buildvcs=false, a build from the module cache).
func cmdVersion(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	pos, code, ok := versionCmd.parse(fs, args, stdout, stderr)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return versionCmd.usageError(stderr, "unexpected argument %q", pos[0])
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprint(stdout, versionText(info))
	return 0
}

// versionText renders build information (nil when the binary has none).
func versionText(info *debug.BuildInfo) string {
	version, from := "(devel)", ""
	settings := map[string]string{}
	goVersion := goruntime.Version()
	if info != nil {
		goVersion = info.GoVersion
		m := info.Main
		if m.Path != modulePath {
			// Built into another main module (go tool in a module that replaces nothing): agentbash is a dependency.
			for _, d := range info.Deps {
				if d.Path == modulePath {
					m = *d
				}
			}
		}
		if m.Version != "" {
			version = m.Version
		}
		if m.Replace != nil {
			version, from = "(devel)", m.Replace.Path
			if m.Replace.Version != "" && m.Replace.Version != "(devel)" {
				version = m.Replace.Version
			}
		}
		for _, s := range info.Settings {
			settings[s.Key] = s.Value
		}
	}
	out := "agentbash " + version
	if from != "" {
		out += " (replaced by " + from + ")"
	}
	out += "\n"
	if rev := settings["vcs.revision"]; rev != "" {
		out += "revision: " + rev
		if t := settings["vcs.time"]; t != "" {
			out += " (" + t + ")"
		}
		if settings["vcs.modified"] == "true" {
			out += ", with uncommitted changes"
		}
		out += "\n"
	} else {
		out += "revision: unknown (built without VCS information, e.g. with -buildvcs=false or from the module cache)\n"
	}
	out += fmt.Sprintf("go: %s %s/%s\n", goVersion, goruntime.GOOS, goruntime.GOARCH)
	out += fmt.Sprintf("generated code: version %d (adapters of versions %d to %d build against this runtime)\n",
		genversion.Max, genversion.Min, genversion.Max)
	return out
}
