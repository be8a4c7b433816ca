package inlinecode

import (
	"strings"
	"testing"
)

// render prints runs as "shell:CMD", "argv:A B <dyn>" and "dynamic", separated by " | ".
func render(runs []Run) string {
	var out []string
	for _, r := range runs {
		switch {
		case r.Dynamic:
			out = append(out, "dynamic")
		case r.Argv != nil:
			var a []string
			for _, x := range r.Argv {
				if x.Dyn {
					a = append(a, "<dyn>")
				} else {
					a = append(a, x.Val)
				}
			}
			out = append(out, "argv:"+strings.Join(a, " "))
		default:
			out = append(out, "shell:"+r.Shell)
		}
	}
	return strings.Join(out, " | ")
}

// The commands each snippet runs, worked out from the languages' documentation (Python's os, subprocess
// and pty modules; perlfunc's system, exec, open, qx; Ruby's Kernel, IO, Open3; Node's child_process;
// PHP's program execution functions; Lua's os and io libraries; POSIX awk and GNU awk; GNU sed's e; Vim's
// :!, :read !, :write !, system()). Nothing is run.
var scanTable = []struct {
	lang Language
	code string
	want string
}{
	// Python.
	{Python, `print(1)`, ``},
	{Python, `import os; os.system("sudo id")`, `shell:sudo id`},
	{Python, `import os;os.system('su'"do"+' id')`, `shell:sudo id`},
	{Python, `import os; os.system("su\x64o id")`, `shell:sudo id`},
	{Python, `import os; os.system(r"su\x64o")`, `shell:su\x64o`},
	{Python, `import subprocess; subprocess.run(["sudo", "id"])`, `argv:sudo id`},
	{Python, `import subprocess as sp; sp.check_output("rm -rf /", shell=True)`, `shell:rm -rf /`},
	{Python, `from subprocess import run as r; r(("sudo", "id"), check=True)`, `argv:sudo id`},
	{Python, `from subprocess import *; call("reboot")`, `shell:reboot`},
	{Python, `from os import system; system("sudo id")`, `shell:sudo id`},
	{Python, `__import__("os").system("sudo id")`, `shell:sudo id`},
	{Python, `o = __import__("os"); o.popen("sudo id").read()`, `shell:sudo id`},
	{Python, `import os; os.execvp("sudo", ["sudo", "id"])`, `argv:sudo id`},
	{Python, `import os; os.execl("/usr/bin/sudo", "sudo", "id")`, `argv:/usr/bin/sudo id`},
	{Python, `import os; os.spawnlp(os.P_WAIT, "rm", "rm", "-rf", "/")`, `argv:rm -rf /`},
	{Python, `import pty; pty.spawn("/bin/sh")`, `shell:/bin/sh`},
	{Python, `import os; os.system(cmd)`, `dynamic`},
	{Python, `import os; os.system(f"sudo {x}")`, `dynamic`},
	{Python, `import os; os.system(f"sudo {{x}}")`, `shell:sudo {x}`},
	{Python, `import os; os.system("sudo %s" % x)`, `dynamic`},
	{Python, `import subprocess; subprocess.run(["rm", "-rf", path])`, `argv:rm -rf <dyn>`},
	{Python, `import os; f = os.system; f("id")`, `dynamic`},
	{Python, `import os; getattr(os, "sys" + "tem")("sudo id")`, `dynamic`},
	{Python, `getattr(obj, "name")`, ``},
	{Python, `__import__(name)`, `dynamic`},
	{Python, `exec("import os; os.system('sudo id')")`, `shell:sudo id`},
	{Python, `exec(open("x.py").read())`, `dynamic`},
	{Python, `eval(input())`, `dynamic`},
	{Python, `import platform; print(platform.system())`, ``},
	{Python, `import asyncio; asyncio.run(main())`, ``},
	{Python, `# os.system("sudo id")` + "\nprint(2)", ``},
	{Python, `print("os.system('sudo id')")`, ``},
	{Python, "import os\nos.system('''sudo\nid''')", "shell:sudo\nid"},
	{Python, `def system(x): pass`, ``},
	// Perl.
	{Perl, `print "hi\n"`, ``},
	{Perl, `system("sudo id")`, `shell:sudo id`},
	{Perl, `system "sudo", "id"`, `argv:sudo id`},
	{Perl, `exec 'rm -rf /' or die`, `shell:rm -rf /`},
	{Perl, "`sudo id`", `shell:sudo id`},
	{Perl, `my $x = qx{sudo id};`, `shell:sudo id`},
	{Perl, `qx'echo $HOME'`, `shell:echo $HOME`},
	{Perl, `system("sudo $cmd")`, `dynamic`},
	{Perl, `system($cmd)`, `dynamic`},
	{Perl, `open(my $f, "sudo id |")`, `shell:sudo id`},
	{Perl, `open(F, "-|", "sudo", "id")`, `argv:sudo id`},
	{Perl, `open(my $f, "<", "file.txt")`, ``},
	{Perl, `eval "system('sudo id')"`, `shell:sudo id`},
	{Perl, `eval { die }`, ``},
	{Perl, `s/x/system("sudo id")/e`, `shell:sudo id`},
	{Perl, `s/x/y/g; print`, ``},
	{Perl, `print "system(x)"`, ``},
	{Perl, `system(qw(sudo id))`, `argv:sudo id`},
	{Perl, `$obj->system("x")`, ``},
	// Ruby.
	{Ruby, `puts 1`, ``},
	{Ruby, `system("sudo id")`, `shell:sudo id`},
	{Ruby, `system "sudo", "id"`, `argv:sudo id`},
	{Ruby, "`sudo id`", `shell:sudo id`},
	{Ruby, `%x(sudo id)`, `shell:sudo id`},
	{Ruby, `puts %x(sudo id)`, `shell:sudo id`},
	{Ruby, `puts 7 % 3`, ``},
	{Ruby, `IO.popen("sudo id").read`, `shell:sudo id`},
	{Ruby, `require "open3"; Open3.capture2("sudo", "id")`, `argv:sudo id`},
	{Ruby, `system("sudo #{x}")`, `dynamic`},
	{Ruby, `exec(ENV["X"])`, `dynamic`},
	{Ruby, `send(:system, "sudo id")`, `shell:sudo id`},
	{Ruby, `open("|sudo id")`, `shell:sudo id`},
	{Ruby, `eval("system('sudo id')")`, `shell:sudo id`},
	{Ruby, `system({"A" => "1"}, "sudo id")`, `shell:sudo id`},
	// JavaScript.
	{JavaScript, `console.log(process.version)`, ``},
	{JavaScript, `require("child_process").execSync("sudo id")`, `shell:sudo id`},
	{JavaScript, `const cp = require('node:child_process'); cp.exec('sudo id', () => {})`, `shell:sudo id`},
	{JavaScript, `const {execSync: x} = require("child_process"); x("rm -rf /")`, `shell:rm -rf /`},
	{JavaScript, `require("child_process").spawnSync("sudo", ["id"])`, `argv:sudo id`},
	{JavaScript, `import {execFileSync} from "child_process"; execFileSync("sudo", ["id"])`, `argv:sudo id`},
	{JavaScript, "require('child_process').execSync(`sudo ${x}`)", `dynamic`},
	{JavaScript, "require('child_process').execSync(`sudo id`)", `shell:sudo id`},
	{JavaScript, `require("child_process")[m]("id")`, `dynamic`},
	{JavaScript, `eval("require('child_process').execSync('sudo id')")`, `shell:sudo id`},
	{JavaScript, `eval(process.argv[1])`, `dynamic`},
	{JavaScript, `console.log(/a/.exec("abc"))`, ``},
	{JavaScript, `// require("child_process").execSync("sudo id")` + "\n1", ``},
	{JavaScript, `process.binding("spawn_sync")`, `dynamic`},
	// PHP.
	{PHP, `echo 1;`, ``},
	{PHP, `system("sudo id");`, `shell:sudo id`},
	{PHP, `echo shell_exec('sudo id');`, `shell:sudo id`},
	{PHP, "echo `sudo id`;", `shell:sudo id`},
	{PHP, `exec("sudo $x");`, `dynamic`},
	{PHP, `call_user_func("system", "sudo id");`, `shell:sudo id`},
	{PHP, `$f = "system"; $f("id");`, `dynamic`},
	{PHP, `pcntl_exec("/usr/bin/sudo", ["id"]);`, `argv:/usr/bin/sudo id`},
	{PHP, `proc_open(["sudo", "id"], [], $p);`, `argv:sudo id`},
	{PHP, `echo "system('x')";`, ``},
	// Lua.
	{Lua, `print(1)`, ``},
	{Lua, `os.execute("sudo id")`, `shell:sudo id`},
	{Lua, `os.execute "sudo id"`, `shell:sudo id`},
	{Lua, `io.popen([[sudo id]]):read("*a")`, `shell:sudo id`},
	{Lua, `os.execute("su" .. "do id")`, `shell:sudo id`},
	{Lua, `os.execute(arg[1])`, `dynamic`},
	{Lua, `os["execute"]("sudo id")`, `dynamic`},
	{Lua, `local e = os.execute; e("id")`, `dynamic`},
	{Lua, `load("os.execute('sudo id')")()`, `shell:sudo id`},
	{Lua, `-- os.execute("sudo id")` + "\nprint(1)", ``},
	// awk.
	{Awk, `{print $1}`, ``},
	{Awk, `BEGIN{system("sudo id")}`, `shell:sudo id`},
	{Awk, `BEGIN { system("su" "do id") }`, `shell:sudo id`},
	{Awk, `{system($0)}`, `dynamic`},
	{Awk, `{print $1 | "sort -n"}`, `shell:sort -n`},
	{Awk, `{print | "sudo tee /etc/x"}`, `shell:sudo tee /etc/x`},
	{Awk, `BEGIN{"date" | getline d; print d}`, `shell:date`},
	{Awk, `BEGIN{cmd = "id"; while ((cmd | getline line) > 0) print line}`, `dynamic`},
	{Awk, `$1 == "x" || $2 ~ /a|b/ {print}`, ``},
	{Awk, `{print "system(1)"}`, ``},
	// sed.
	{Sed, `1p`, ``},
	{Sed, `-n`, ``},
	{Sed, `s/a/b/g`, ``},
	{Sed, `1e sudo id`, `shell:sudo id`},
	{Sed, `e`, `dynamic`},
	{Sed, `s/.*/sudo &/e`, `dynamic`},
	{Sed, `s|/|x|ge;p`, `dynamic`},
	{Sed, `/x/{e reboot` + "\n}", `shell:reboot`},
	{Sed, `s/e/x/`, ``},
	{Sed, `a e sudo id`, ``},
	{Sed, `s/x/y/w out.txt`, ``},
	{Sed, `y/abc/xyz/;e id`, `shell:id`},
	// Vim's Ex command line.
	{Ex, `wq`, ``},
	{Ex, `!sudo id`, `shell:sudo id`},
	{Ex, `:!sudo id | ls`, `shell:sudo id | ls`},
	{Ex, `r !sudo id`, `shell:sudo id`},
	{Ex, `w !sudo tee %`, `shell:sudo tee %`},
	{Ex, `w! out.txt`, ``},
	{Ex, `%!sort`, `shell:sort`},
	{Ex, `silent !reboot`, `shell:reboot`},
	{Ex, `call system("sudo id")`, `shell:sudo id`},
	{Ex, `let x = system(g:cmd)`, `dynamic`},
	{Ex, `exe "!sudo id"`, `shell:sudo id`},
	{Ex, `exe g:x`, `dynamic`},
	{Ex, `terminal sudo id`, `shell:sudo id`},
	{Ex, `set nu | q`, ``},
	{Ex, `py3 import os; os.system("sudo id")`, `shell:sudo id`},
	{Ex, `g/x/!sudo id`, `shell:sudo id`},
	{Ex, `sandbox !sudo id`, ``},
}

func TestScan(t *testing.T) {
	for _, tc := range scanTable {
		if got := render(Scan(tc.lang, tc.code)); got != tc.want {
			t.Errorf("%s %q: %q, want %q", tc.lang, tc.code, got, tc.want)
		}
	}
}

// Code too long or nested too deep is one dynamic run.
func TestScanLimits(t *testing.T) {
	long := strings.Repeat("x", MaxCode+1)
	if got := render(Scan(Python, long)); got != "dynamic" {
		t.Errorf("long code: %q", got)
	}
	deep := `system("sudo id")`
	for range maxDepth + 2 {
		deep = `eval("` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(deep) + `")`
	}
	if got := render(Scan(PHP, deep)); got != "dynamic" {
		t.Errorf("deep eval: %q", got)
	}
}

func FuzzScan(f *testing.F) {
	for _, tc := range scanTable {
		f.Add(string(tc.lang), tc.code)
	}
	f.Fuzz(func(t *testing.T, lang, code string) {
		if !Known(lang) {
			return
		}
		runs := Scan(Language(lang), code)
		if len(runs) > maxRuns {
			t.Fatalf("%d runs", len(runs))
		}
		for _, r := range runs {
			kinds := 0
			for _, k := range []bool{r.Dynamic, r.Shell != "", r.Argv != nil} {
				if k {
					kinds++
				}
			}
			if kinds != 1 || (r.Argv != nil && len(r.Argv) == 0) {
				t.Fatalf("%q: run %+v is not exactly one of dynamic, shell source, argument vector", code, r)
			}
		}
	})
}
