package shell

import "testing"

func TestBuildToolsAdversarial(t *testing.T) {
	runShows(t, [][2]string{
		{"mvn test -Djvm=/tmp/evil", "opaque"},
		{"mvn test -Dmaven.repo.local=/tmp/r", "opaque"},
		{"mvn test --define=argLine=-javaagent:/tmp/a.jar", "opaque"},
		{"mvn test -f /tmp/pom.xml", "opaque"},
		{"mvn verify -s ~/other-settings.xml", "opaque"},
		{"mvn test -l /tmp/log", "write:/tmp/log"},
		{"./gradlew test -Dorg.gradle.java.home=/tmp/jdk", "opaque"},
		{"./gradlew test -Dorg.gradle.jvmargs=-javaagent:/tmp/a.jar", "opaque"},
		{"gradle test -I /tmp/init.gradle", "opaque"},
		{"./gradlew build -g /tmp/gh", "opaque"},
		{"./gradlew test -p ../other", "opaque"},
		{"./gradlew test --project-cache-dir /tmp/c", "write:/tmp/c"},
		{"dotnet build -p:CscToolExe=/tmp/evil", "opaque"},
		{"dotnet build '/p:Configuration=Release;CscToolPath=/tmp'", "opaque"},
		{"dotnet test --property:VSTestCLIRunSettings=x", "opaque"},
		{"dotnet test --test-adapter-path /tmp/a", "opaque"},
		{"dotnet test -s /tmp/x.runsettings", "opaque"},
		{"dotnet build -o /tmp/out", "write:/tmp/out"},
		{"dotnet test --results-directory /tmp/r", "write:/tmp/r"},
		{"dotnet test --logger 'trx;LogFileName=/tmp/x.trx'", "opaque"},
		{"dotnet build -bl:/tmp/x.binlog", "write:/tmp/x.binlog"},
		{"yarn --cwd /tmp/other test", "opaque"},
		{"yarn test --cwd=../other", "opaque"},
		{"pnpm -C /tmp/other test", "opaque"},
		{"pnpm test --dir ../x", "opaque"},
		{"make test -f /tmp/evil.mk", "opaque"},
		{"make --file=../x.mk test", "opaque"},
	})
}

func TestBuildToolsEveryday(t *testing.T) {
	runEffectCases(t, []effectCase{
		{"mvn", "mvn -B -q test -Dtest=FooTest -DskipITs", []string{"exec mvn -B -q test -Dtest=FooTest -DskipITs"}},
		{"gradlew", "./gradlew test --offline -Dorg.gradle.daemon=false", []string{"exec ./gradlew test --offline -Dorg.gradle.daemon=false"}},
		{"dotnet", "dotnet test -c Release -p:Configuration=Release", []string{"exec dotnet test -c Release -p:Configuration=Release"}},
		{"pnpm dir inside", "pnpm -C packages/ui test", []string{"exec pnpm -C packages/ui test"}},
		{"make -f inside", "make -f build.mk test", []string{"exec make -f build.mk test", "read build.mk"}},
	})
}
