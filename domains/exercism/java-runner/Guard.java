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
 * security manager, reflecting past access checks, reading /proc, native code, processes, class loaders) is
 * recorded for the report, even when the solution catches the exception.
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
      if (perm.getActions().contains("execute")) return "the solution tried to run a program (" + name + ")";
      if (name.startsWith("/proc")) return "the solution tried to read " + name;
      if (perm.getActions().contains("write") || perm.getActions().contains("delete"))
        return "the solution tried to write " + name;
    }
    if (perm instanceof PropertyPermission && perm.getActions().contains("write"))
      return "the solution tried to set the system property " + name;
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
