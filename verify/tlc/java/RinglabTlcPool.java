// Runs tlc2.TLC on one model after another in this JVM, so that a tier of
// small models pays for one JVM start and one warm-up, not one each.
//
// Requests come on stdin, one a line: the run's working directory, its
// TLA-Library path (empty for none), then TLC's arguments, separated by
// tabs. TLC's output goes to stdout as it is written; then the run's stderr,
// each line after "@@ringlab-stderr ", and "@@ringlab-exit <status>" on a
// line of its own. A run that throws is reported with status 255 and ends
// this JVM, in case it left the JVM itself broken.
//
// TLC keeps state in static fields (its intern table of names, whose
// order ranks record fields and set elements, the model values, options
// set only when a flag is given, warnings printed once per JVM). Each run
// therefore loads tlc2.TLC through a class loader of its own: the run sees
// its statics as a fresh JVM would, while the JDK's own classes stay
// loaded and compiled. The jar is the first argument.

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

public final class RinglabTlcPool {
    /** stdout, remembering whether the last byte was a newline. */
    static final class Out extends OutputStream {
        final OutputStream to;
        int last = '\n';
        Out(OutputStream to) { this.to = to; }
        @Override public synchronized void write(int b) throws java.io.IOException { to.write(b); last = b; }
        @Override public synchronized void write(byte[] b, int off, int len) throws java.io.IOException {
            to.write(b, off, len);
            if (len > 0) last = b[off + len - 1];
        }
        @Override public synchronized void flush() throws java.io.IOException { to.flush(); }
    }

    public static void main(String[] argv) throws Exception {
        Out out = new Out(new FileOutputStream(FileDescriptor.out));
        PrintStream stdout = new PrintStream(out, true, StandardCharsets.UTF_8);
        System.setOut(stdout);
        java.net.URL[] jar = { new java.io.File(argv[0]).toURI().toURL() };
        ClassLoader parent = RinglabTlcPool.class.getClassLoader().getParent();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isEmpty()) continue;
            String[] parts = line.split("\t", -1);
            if (parts.length < 2) {
                stdout.println("@@ringlab-stderr bad request: want <dir>\\t<library>\\t<args...>, got `" + line + "`");
                stdout.println("@@ringlab-exit 1");
                continue;
            }
            String dir = parts[0];
            String library = parts[1];
            String[] args = Arrays.copyOfRange(parts, 2, parts.length);
            ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
            PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);
            System.setErr(err);
            int status;
            Throwable crash = null;
            try (java.net.URLClassLoader loader = new java.net.URLClassLoader(jar, parent)) {
                Thread.currentThread().setContextClassLoader(loader);
                Class<?> tlcClass = Class.forName("tlc2.TLC", true, loader);
                Class<?> toolIO = Class.forName("util.ToolIO", true, loader);
                Method exitStatus = Class.forName("tlc2.output.EC$ExitStatus", true, loader).getMethod("errorConstantToExitStatus", int.class);
                Method handle = tlcClass.getMethod("handleParameters", String[].class);
                Method checkEnv = tlcClass.getDeclaredMethod("checkEnvironment");
                checkEnv.setAccessible(true);
                Method setResolver = tlcClass.getMethod("setResolver", Class.forName("util.FilenameToStream", true, loader));
                Method mainFile = tlcClass.getMethod("getMainFile");
                Method process = tlcClass.getMethod("process");
                Method parseDirname = Class.forName("util.FileUtil", true, loader).getMethod("parseDirname", String.class);
                Class<?> simpleResolver = Class.forName("util.SimpleFilenameToStream", true, loader);
                toolIO.getField("out").set(null, stdout);
                toolIO.getField("err").set(null, err);
                toolIO.getMethod("setUserDir", String.class).invoke(null, dir);
                if (library.isEmpty()) System.clearProperty("TLA-Library");
                else System.setProperty("TLA-Library", library);
                // What tlc2.TLC.main does, with its exits made returns.
                Object tlc = tlcClass.getConstructor().newInstance();
                if (!(Boolean) handle.invoke(tlc, (Object) args) || !(Boolean) checkEnv.invoke(tlc)) {
                    status = 1;
                } else {
                    String main = (String) mainFile.invoke(tlc);
                    String specDir = (String) parseDirname.invoke(null, main);
                    if (!specDir.isEmpty()) {
                        setResolver.invoke(tlc, simpleResolver.getConstructor(String.class).newInstance(specDir));
                    } else {
                        setResolver.invoke(tlc, simpleResolver.getConstructor().newInstance());
                    }
                    int code = (Integer) process.invoke(tlc);
                    status = (Integer) exitStatus.invoke(null, code);
                }
            } catch (Throwable t) {
                crash = t instanceof java.lang.reflect.InvocationTargetException ? t.getCause() : t;
                err.println("TLC crashed inside the pooled JVM: " + crash);
                crash.printStackTrace(err);
                status = 255;
            }
            err.flush();
            stdout.flush();
            if (out.last != '\n') stdout.println();
            for (String l : errBytes.toString(StandardCharsets.UTF_8).split("\n")) {
                if (!l.isEmpty()) stdout.println("@@ringlab-stderr " + l);
            }
            stdout.println("@@ringlab-exit " + status);
            stdout.flush();
            if (crash != null) System.exit(status);
        }
        // TLC leaves threads behind (RMI's reaper): end them with the JVM.
        System.exit(0);
    }
}
