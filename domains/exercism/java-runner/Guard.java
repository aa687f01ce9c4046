package hyperagents.grading;

import java.io.FilePermission;
import java.lang.reflect.ReflectPermission;
import java.net.URL;
import java.security.AccessControlException;
import java.security.CodeSource;
import java.security.Permission;
import java.security.Permissions;
import java.security.Policy;
import java.security.ProtectionDomain;
import java.security.SecurityPermission;
import java.util.ArrayList;
import java.util.List;
import java.util.PropertyPermission;

/**
 * The security manager grading runs under, with the policy it checks against: code loaded from the
 * solution's folder (its protection domain) gets only {@link #SOLUTION}; the JDK, the framework and the
 * tests get every permission. Java's access control checks every frame of the stack, and threads inherit
 * the context that started them, so a permission is denied whenever the solution's code is on the way to it
 * (a thread it started, a class it defined at run time, a callback the tests or JUnit made into it).
 *
 * <p>A denied permission that only serves tampering (ending the JVM, replacing the standard streams or the
 * security manager, reflecting past access checks, reading /proc or the tests, writing what the runner
 * reads, native code, processes, class loaders) is recorded for the report, even when the solution catches
 * the exception. Others an honest solution might ask (a system property set, a debug log written) are
 * denied without a record: the test that asked fails with the reason.
 *
 * <p>No lambdas or indy string concatenation here: a check must not load classes that themselves need
 * checks (the runner is compiled with -XDstringConcat=inline).
 */
@SuppressWarnings("removal")
final class Guard extends SecurityManager {
  private static final Permissions SOLUTION = new Permissions();

  static {
    SOLUTION.add(new PropertyPermission("*", "read"));
    // Thread pools: ExecutorService.shutdown checks it.
    SOLUTION.add(new RuntimePermission("modifyThread"));
    SOLUTION.add(new RuntimePermission("accessDeclaredMembers"));
    SOLUTION.setReadOnly();
  }

  private final String solutionPath;
  private final List<String> attempts = new ArrayList<>();
  private volatile boolean exitAllowed = false;

  Guard(URL solutionFolder) {
    this.solutionPath = solutionFolder.getPath();
  }

  void install() {
    Policy.setPolicy(new SolutionPolicy(solutionPath));
    System.setSecurityManager(this);
  }

  /** The runner's own exit, after the report is written. */
  void allowExit() {
    exitAllowed = true;
  }

  List<String> attempts() {
    synchronized (attempts) {
      return new ArrayList<>(attempts);
    }
  }

  @Override
  public void checkPermission(Permission perm) {
    if (exitAllowed && perm instanceof RuntimePermission && perm.getName().startsWith("exitVM")) return;
    try {
      super.checkPermission(perm);
    } catch (AccessControlException e) {
      final String attempt = tampering(perm);
      if (attempt != null)
        synchronized (attempts) {
          if (!attempts.contains(attempt)) attempts.add(attempt);
        }
      throw e;
    }
  }

  @Override
  public void checkPermission(Permission perm, Object context) {
    checkPermission(perm);
  }

  /** What a denied permission says the solution tried, or null for one an honest solution might ask. */
  private static String tampering(Permission perm) {
    final String name = perm.getName();
    if (perm instanceof RuntimePermission) {
      if (name.startsWith("exitVM")) return "the solution tried to end the JVM (System.exit or Runtime.halt)";
      if (name.equals("setIO")) return "the solution tried to replace System.out, System.err or System.in";
      if (name.equals("shutdownHooks")) return "the solution tried to add a shutdown hook";
      if (name.equals("setSecurityManager") || name.equals("createSecurityManager"))
        return "the solution tried to replace the security manager";
      if (name.startsWith("loadLibrary")) return "the solution tried to load native code";
      if (name.equals("createClassLoader")) return "the solution tried to make a class loader";
      if (name.equals("stopThread")) return "the solution tried to stop another thread";
      if (name.startsWith("accessClassInPackage.jdk.internal") || name.startsWith("accessClassInPackage.sun"))
        return "the solution tried to reach the JDK's internals (" + name + ")";
      return null;
    }
    if (perm instanceof ReflectPermission && name.equals("suppressAccessChecks"))
      return "the solution tried to reflect past access checks (setAccessible)";
    if (perm instanceof SecurityPermission) return "the solution tried to change security settings (" + name + ")";
    if (perm instanceof FilePermission) {
      final String actions = perm.getActions();
      if (actions.contains("execute")) return "the solution tried to run a program (" + name + ")";
      if (name.startsWith("/proc")) return "the solution tried to read " + name;
      if (name.contains("src/test") || name.contains("test-classes"))
        return "the solution tried to read the tests (" + name + ")";
      // What the runner or the JVM would read: service registrations, configuration, classes. Other files
      // (a debug log) are denied without a flag.
      if ((actions.contains("write") || actions.contains("delete"))
          && (name.contains("META-INF") || name.endsWith(".properties") || name.endsWith(".class")
              || name.endsWith(".jar") || name.endsWith(".java")))
        return "the solution tried to write " + name;
    }
    if (perm.getClass().getName().equals("com.sun.tools.attach.AttachPermission")
        || perm.getClass().getName().equals("java.lang.management.ManagementPermission"))
      return "the solution tried to inspect the JVM (" + perm.getClass().getName() + " " + name + ")";
    return null;
  }

  /** Every permission, except for code from the solution's folder. */
  private static final class SolutionPolicy extends Policy {
    private final String solutionPath;

    SolutionPolicy(String solutionPath) {
      this.solutionPath = solutionPath;
    }

    @Override
    public boolean implies(ProtectionDomain domain, Permission perm) {
      if (domain == null) return true;
      final CodeSource source = domain.getCodeSource();
      final URL location = source == null ? null : source.getLocation();
      if (location != null && solutionPath.equals(location.getPath())) return SOLUTION.implies(perm);
      return true;
    }
  }
}
