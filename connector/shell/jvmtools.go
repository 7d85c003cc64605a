package shell

import "strings"

// Maven, Gradle and dotnet build and test the project (its own build
// files are code the jail contains). On top of that their command lines
// can name a JDK, an agent, a test adapter or a compiler to run through
// properties (-Djvm=, -Dorg.gradle.java.home=, -p:CscToolExe=), load build
// files, settings and init scripts from elsewhere, and write reports and
// outputs anywhere. Properties pass only from a short list of harmless
// names; the rest escalate.

var mvnSafeProps = map[string]bool{"test": true, "skipTests": true, "skipITs": true, "maven.test.skip": true,
	"maven.test.failure.ignore": true, "failIfNoTests": true, "surefire.failIfNoSpecifiedTests": true,
	"it.test": true, "checkstyle.skip": true, "spotbugs.skip": true, "jacoco.skip": true, "gpg.skip": true,
	"maven.javadoc.skip": true, "enforcer.skip": true, "revision": true, "changelist": true, "sha1": true,
	"style.color": true}

var gradleSafeProps = map[string]bool{"org.gradle.daemon": true, "org.gradle.parallel": true,
	"org.gradle.caching": true, "org.gradle.console": true, "org.gradle.logging.level": true,
	"org.gradle.configureondemand": true, "test.single": true}

var dotnetSafeProps = map[string]bool{"configuration": true, "platform": true, "targetframework": true,
	"version": true, "versionprefix": true, "versionsuffix": true, "treatwarningsaserrors": true,
	"continuousintegrationbuild": true, "nowarn": true, "warninglevel": true}

// mvnTool: mvn [OPTIONS] [GOALS].
func mvnTool(w *walker, argv []Word, c cmdCtx) {
	p := parseArgs(argv[1:], &optSpec{exact: true, argShort: "fsltDPbTe", argLong: []string{"--file", "--settings",
		"--global-settings", "--toolchains", "--global-toolchains", "--log-file", "--projects", "--activate-profiles",
		"--threads", "--builder", "--resume-from", "--define"}})
	w.buildProps(p, "mvn", mvnSafeProps, c, "-D", "--define")
	w.buildDirs(p, "mvn", c, "-f", "--file", "-s", "--settings", "--global-settings", "-t", "--toolchains", "--global-toolchains")
	for _, f := range p.values("-l", "--log-file") {
		w.pathEffect(Write, f, "mvn writes its log", c.src)
	}
}

// gradleTool: gradle or ./gradlew [OPTIONS] [TASKS].
func gradleTool(w *walker, argv []Word, c cmdCtx) {
	p := parseArgs(argv[1:], &optSpec{exact: true, argShort: "IpbcgDPx", argLong: []string{"--init-script",
		"--project-dir", "--build-file", "--settings-file", "--gradle-user-home", "--project-cache-dir",
		"--system-prop", "--project-prop", "--exclude-task", "--include-build", "--console", "--warning-mode",
		"--max-workers", "--priority", "--dependency-verification", "--write-verification-metadata"}})
	w.buildProps(p, "gradle", gradleSafeProps, c, "-D", "--system-prop")
	w.buildDirs(p, "gradle", c, "-I", "--init-script", "-p", "--project-dir", "-b", "--build-file",
		"-c", "--settings-file", "-g", "--gradle-user-home", "--include-build")
	for _, f := range p.values("--project-cache-dir") {
		w.pathEffect(Write, f, "gradle writes its cache there", c.src)
	}
}

// dotnetTool: dotnet build/test [OPTIONS]; MSBuild properties come as
// -p:N=V, /p:N=V, -property:N=V and --property:N=V.
func dotnetTool(w *walker, argv []Word, c cmdCtx) {
	p := parseArgs(dotnetCLIWords(argv[1:]), &optSpec{exact: true, argShort: "ocfrsvlad", argLong: []string{"--output",
		"--configuration", "--framework", "--runtime", "--settings", "--verbosity", "--logger", "--results-directory",
		"--diag", "--test-adapter-path", "--collect", "--filter", "--blame-hang-timeout", "--arch", "--os",
		"--source", "--version-suffix", "--property"}})
	if p.dynamic {
		w.a.opaqueSrc(c.src, "dotnet has an argument of unknown value that could set an MSBuild property")
	}
	for _, a := range argv[1:] {
		t := strings.ToLower(a.Text)
		for _, pre := range []string{"-p:", "/p:", "-property:", "--property:", "/property:"} {
			if rest, ok := strings.CutPrefix(t, pre); ok {
				w.dotnetProps(rest, c)
			}
		}
		if strings.HasPrefix(t, "-bl") || strings.HasPrefix(t, "/bl") || strings.HasPrefix(t, "-binarylogger") {
			if _, f, ok := strings.Cut(a.Text, ":"); ok {
				w.pathEffect(Write, Word{Text: f}, "dotnet writes the binary log", c.src)
			}
		}
	}
	if p.has("--test-adapter-path") {
		w.a.opaqueSrc(c.src, "dotnet test --test-adapter-path loads test adapters (code) from a directory")
	}
	w.buildDirs(p, "dotnet", c, "-s", "--settings")
	for _, f := range p.values("-o", "--output", "--results-directory", "-d", "--diag") {
		w.pathEffect(Write, f, "dotnet writes there", c.src)
	}
	for _, l := range p.values("-l", "--logger") {
		if strings.Contains(strings.ToLower(l.Text), "file") || l.Dynamic {
			w.a.opaqueSrc(c.src, "dotnet --logger names a file it writes: "+clip(l.Text))
		}
	}
}

func (w *walker) dotnetProps(list string, c cmdCtx) {
	for _, kv := range strings.FieldsFunc(list, func(r rune) bool { return r == ';' || r == ',' }) {
		name, _, _ := strings.Cut(kv, "=")
		if !dotnetSafeProps[strings.TrimSpace(name)] {
			w.a.opaqueSrc(c.src, "dotnet MSBuild property "+clip(name)+" can name the compiler or tools to run")
		}
	}
}

// buildProps escalates -DNAME=VALUE properties outside safe.
func (w *walker) buildProps(p parsedArgs, name string, safe map[string]bool, c cmdCtx, opts ...string) {
	if p.dynamic {
		w.a.opaqueSrc(c.src, name+" has an argument of unknown value that could set a property")
	}
	for _, v := range p.values(opts...) {
		prop, _, _ := strings.Cut(v.Text, "=")
		if v.Dynamic || !safe[prop] {
			w.a.opaqueSrc(c.src, name+" property "+clip(prop)+" can name a program, an agent or a JDK to run")
		}
	}
}

// buildDirs escalates build files, settings and scripts from elsewhere.
func (w *walker) buildDirs(p parsedArgs, name string, c cmdCtx, opts ...string) {
	for _, v := range p.values(opts...) {
		if leavesDir(v) {
			w.a.opaqueSrc(c.src, name+" loads build files, settings or scripts from elsewhere: "+clip(v.Text))
		}
	}
}

// dotnetCLIWords leaves out MSBuild's own switches (-p:N=V, /bl:F,
// -m:4), which dotnet passes on and which are checked word by word.
func dotnetCLIWords(args []Word) []Word {
	var out []Word
	for _, a := range args {
		t := a.Text
		name, _, colon := strings.Cut(strings.TrimLeft(t, "-/"), ":")
		if !a.Dynamic && colon && name != "" && isLetters(name) && (strings.HasPrefix(t, "-") || strings.HasPrefix(t, "/")) {
			continue
		}
		out = append(out, a)
	}
	return out
}

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isLetter(s[i]) {
			return false
		}
	}
	return true
}
