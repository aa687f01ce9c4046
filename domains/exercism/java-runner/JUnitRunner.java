package hyperagents.grading;

import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.engine.JupiterTestEngine;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherConfig;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs an exercise's JUnit tests and prints one report line that carries the grading's token.
 *
 * <p>Contract: the token is the first line of standard input, read before any class of the solution is
 * loaded, and kept in a local variable only. The report is written through a file descriptor of its own
 * (opened before the tests), as the last line: a newline, the token, a space, and a JSON object
 * {@code {"tests":[{"name":"Class#method","passed":true,"message":"..."}],"tampering":["..."]}}. The exit
 * status is 0 when every test that ran passed, else 1.
 *
 * <p>Arguments: the folder of the tests' classes, the folder of the solution's classes (compiled apart by
 * {@link Compile}, so that the solution's classes have a protection domain of their own), then resource
 * folders (each may be missing). Tests and solution share one class loader (the tests reach the solution's
 * package-private classes), the tests' folder first; the framework (this runner, JUnit, AssertJ) is in the
 * parent loader, so a class of the solution never stands in for one of theirs. Code from the solution's
 * folder runs under {@link Guard}: it may not end the JVM, replace the standard streams, reflect past
 * access checks, read or write files, start processes, load native code or make class loaders.
 */
public final class JUnitRunner {
  private static final int MESSAGE_CHARS = 500;
  private static final long TEST_STACK_BYTES = 64L * 1024 * 1024;
  /** The packages of the framework and the runner, which no class of the solution may be in. */
  private static final String[] RESERVED_PACKAGES = {
    "org.junit.", "junit.", "org.assertj.", "org.opentest4j.", "org.apiguardian.", "org.json.", "hyperagents."
  };

  private JUnitRunner() {}

  public static void main(String[] args) throws Exception {
    final String token = readToken(System.in);
    final OutputStream report = reportStream();
    final Path testDir = Paths.get(args[0]);
    final Path mainDir = Paths.get(args[1]);
    final List<String> tampering = new ArrayList<>();
    final TreeSet<String> testClasses = classNames(testDir);
    for (String name : classNames(mainDir)) {
      if (testClasses.contains(name)) tampering.add("the solution defines " + name + ", a class of the tests");
      for (String reserved : RESERVED_PACKAGES)
        if (name.startsWith(reserved)) tampering.add("the solution defines " + name + ", in the test framework's package");
    }

    final List<URL> urls = new ArrayList<>();
    urls.add(testDir.toUri().toURL());
    urls.add(mainDir.toUri().toURL());
    for (int i = 2; i < args.length; i++) if (Files.isDirectory(Paths.get(args[i]))) urls.add(Paths.get(args[i]).toUri().toURL());
    final ClassLoader framework = JUnitRunner.class.getClassLoader();
    final URLClassLoader exercise = new URLClassLoader(urls.toArray(new URL[0]), framework);

    final Guard guard = new Guard(mainDir.toUri().toURL());
    guard.install();

    // Every class of the tests is loaded now, nested and anonymous ones too, before any code of the solution
    // runs: a solution that defines classes at run time (Lookup.defineClass, in the tests' package) cannot
    // put its own in place of one the tests would load later.
    final List<DiscoverySelector> selectors = new ArrayList<>();
    for (String name : testClasses) {
      final Class<?> loaded = Class.forName(name, false, exercise);
      if (name.indexOf('$') < 0) selectors.add(DiscoverySelectors.selectClass(loaded));
    }
    // Only what is named here takes part: no engine, listener, filter or extension found on the class path,
    // no configuration from junit-platform.properties or system properties.
    final LauncherConfig config = LauncherConfig.builder()
        .enableTestEngineAutoRegistration(false)
        .enableLauncherSessionListenerAutoRegistration(false)
        .enableLauncherDiscoveryListenerAutoRegistration(false)
        .enableTestExecutionListenerAutoRegistration(false)
        .enablePostDiscoveryFilterAutoRegistration(false)
        .addTestEngines(new JupiterTestEngine())
        .build();
    final LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
        .selectors(selectors)
        .enableImplicitConfigurationParameters(false)
        .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "false")
        .build();
    final Outcomes outcomes = new Outcomes();
    final Launcher launcher = LauncherFactory.create(config);
    // The JVM's threads have small stacks (-Xss), so that tests that start many threads fit the sandbox's
    // data limit; the tests themselves run on a thread with room for deep recursion.
    final Throwable[] stopped = new Throwable[1];
    final Thread tests = new Thread(null, () -> {
      try {
        launcher.execute(request, outcomes);
      } catch (Throwable e) {
        stopped[0] = e;
      }
    }, "tests", TEST_STACK_BYTES);
    tests.start();
    tests.join();
    // JUnit passes on what it cannot recover from (OutOfMemoryError): the tests after it never ran.
    if (stopped[0] != null) outcomes.stopped(stopped[0]);

    tampering.addAll(guard.attempts());
    final StringBuilder json = new StringBuilder("{\"tests\":[");
    boolean first = true;
    boolean allPassed = !outcomes.results.isEmpty();
    int passed = 0;
    for (Outcome o : outcomes.results) {
      if (!first) json.append(',');
      first = false;
      json.append("{\"name\":").append(quote(o.name)).append(",\"passed\":").append(o.passed);
      if (o.message != null) json.append(",\"message\":").append(quote(o.message));
      json.append('}');
      if (o.passed) passed++;
      else allPassed = false;
    }
    json.append("],\"tampering\":[");
    for (int i = 0; i < tampering.size(); i++) json.append(i == 0 ? "" : ",").append(quote(tampering.get(i)));
    json.append("]}");
    final String summary = "JUnit: " + passed + " of " + outcomes.results.size() + " tests passed\n";
    final String line = summary + "\n" + token + " " + json + "\n";
    report.write(line.getBytes(StandardCharsets.UTF_8));
    report.flush();
    guard.allowExit();
    Runtime.getRuntime().halt(allPassed && tampering.isEmpty() ? 0 : 1);
  }

  /** The first line of standard input (the harness writes the token there and closes it). */
  private static String readToken(InputStream in) throws IOException {
    final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (int b = in.read(); b >= 0 && b != '\n'; b = in.read()) bytes.write(b);
    final String token = bytes.toString(StandardCharsets.UTF_8).trim();
    if (token.isEmpty()) throw new IllegalStateException("no token on standard input");
    return token;
  }

  /**
   * A descriptor of standard output of the runner's own, so that a solution that closes System.out (and
   * with it descriptor 1) does not close the report's.
   */
  private static OutputStream reportStream() {
    try {
      return new FileOutputStream("/proc/self/fd/1");
    } catch (IOException e) {
      return new FileOutputStream(FileDescriptor.out);
    }
  }

  /** Binary names of the classes under a folder of class files, sorted. */
  private static TreeSet<String> classNames(Path dir) throws IOException {
    final TreeSet<String> names = new TreeSet<>();
    if (!Files.isDirectory(dir)) return names;
    try (Stream<Path> files = Files.walk(dir)) {
      files.filter(f -> f.toString().endsWith(".class")).forEach(f -> {
        final String rel = dir.relativize(f).toString();
        names.add(rel.substring(0, rel.length() - ".class".length()).replace('/', '.'));
      });
    }
    return names;
  }

  static String quote(String text) {
    final StringBuilder out = new StringBuilder("\"");
    for (int i = 0; i < text.length(); i++) {
      final char c = text.charAt(i);
      if (c == '"' || c == '\\') out.append('\\').append(c);
      else if (c < 0x20 || c == 0x2028 || c == 0x2029) out.append(String.format("\\u%04x", (int) c));
      else out.append(c);
    }
    return out.append('"').toString();
  }

  private static final class Outcome {
    final String name;
    final boolean passed;
    final String message;

    Outcome(String name, boolean passed, String message) {
      this.name = name;
      this.passed = passed;
      this.message = message;
    }
  }

  /**
   * Each test's outcome by the name the grader expects: the top-level test class and the method
   * ({@code BowlingTest#twelveStrikes}); every invocation of a parameterized or repeated test under its
   * method's name. A container that failed (its class could not start) is an outcome of its own, by the
   * class's name, so the reason is reported; a skipped test is reported as not passed.
   */
  private static final class Outcomes implements TestExecutionListener {
    final List<Outcome> results = new ArrayList<>();
    private final Map<String, String> methodNames = new ConcurrentHashMap<>();

    @Override
    public void executionSkipped(TestIdentifier id, String reason) {
      record(id, false, "skipped: " + reason);
    }

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
      final boolean passed = result.getStatus() == TestExecutionResult.Status.SUCCESSFUL;
      if (!id.isTest() && passed) return;
      // The outcome is fixed before any code of the solution (a Throwable's getMessage) runs.
      final String message = passed ? null : describe(result.getThrowable().orElse(null), result.getStatus());
      record(id, passed, message);
    }

    synchronized void stopped(Throwable error) {
      results.add(new Outcome("the test run", false, "stopped: " + describe(error, TestExecutionResult.Status.FAILED)));
    }

    private synchronized void record(TestIdentifier id, boolean passed, String message) {
      final String name = nameOf(id);
      if (name == null) return;
      results.add(new Outcome(name, passed, message));
    }

    private String nameOf(TestIdentifier id) {
      final TestSource source = id.getSource().orElse(null);
      if (source instanceof MethodSource) {
        final MethodSource method = (MethodSource) source;
        return topLevel(method.getClassName()) + "#" + method.getMethodName();
      }
      if (source instanceof ClassSource) return topLevel(((ClassSource) source).getClassName());
      return id.isTest() ? id.getUniqueId() : null;
    }

    private static String topLevel(String className) {
      final int nested = className.indexOf('$');
      return nested < 0 ? className : className.substring(0, nested);
    }

    private static String describe(Throwable error, TestExecutionResult.Status status) {
      final String what = status == TestExecutionResult.Status.ABORTED ? "aborted: " : "";
      if (error == null) return what + status;
      String text;
      try {
        text = error.toString();
      } catch (Throwable e) {
        text = error.getClass().getName();
      }
      if (text == null) text = error.getClass().getName();
      text = what + text;
      return text.length() <= MESSAGE_CHARS ? text : text.substring(0, MESSAGE_CHARS) + "...";
    }
  }
}
