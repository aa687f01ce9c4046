package hyperagents.grading;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Compiles an exercise in one JVM, before the tests run in another: the solution's sources against the
 * framework alone, then the tests' against the framework first and the solution's classes, each into a
 * folder of its own. No code of the solution runs here (annotation processing is off), and standard input
 * is never read. Exit status 0 when both compiled; the compiler's errors go to standard error.
 *
 * <p>Arguments: the solution's sources, its classes' folder, the tests' sources, their classes' folder.
 */
public final class Compile {
  private Compile() {}

  public static void main(String[] args) throws IOException {
    final String framework = System.getProperty("java.class.path");
    final boolean ok = compile(Paths.get(args[0]), Paths.get(args[1]), framework)
        && compile(Paths.get(args[2]), Paths.get(args[3]), framework + File.pathSeparator + args[1]);
    System.exit(ok ? 0 : 1);
  }

  private static boolean compile(Path sources, Path classes, String classPath) throws IOException {
    Files.createDirectories(classes);
    final List<String> files = new ArrayList<>();
    if (Files.isDirectory(sources))
      try (Stream<Path> all = Files.walk(sources)) {
        all.filter(f -> f.toString().endsWith(".java")).forEach(f -> files.add(f.toString()));
      }
    if (files.isEmpty()) return true;
    final JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    final List<String> options = new ArrayList<>(List.of(
        "-encoding", "UTF-8", "-nowarn", "-proc:none", "-implicit:none", "-sourcepath", "",
        "-d", classes.toString(), "-cp", classPath));
    options.addAll(files);
    return javac.run(null, null, null, options.toArray(new String[0])) == 0;
  }
}
