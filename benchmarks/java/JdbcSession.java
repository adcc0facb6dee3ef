import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs SQL statements on one JDBC connection and prints one JSON line per statement: a stand-in for beeline
 * (hive-beeline 4.x is not on Maven Central), run by {@code benchmarks/hiveserver2.py}.
 *
 * <pre>java -cp CLASSES:hive-jdbc-4.0.1-standalone.jar JdbcSession JDBC_URL [USER [PASSWORD]] &lt; statements.sql</pre>
 *
 * <p>The statements come from stdin. A statement ends at a line whose last non-blank character is {@code ;}
 * (that {@code ;} is dropped; a statement may span lines, and one statement a line each ending in {@code ;}
 * works too); lines that start with {@code --} and blank lines between statements are skipped; text after the
 * last {@code ;} is a statement too. Every statement runs, whether or not the one before failed.
 *
 * <p>Each output line is one JSON object with {@code statement} and {@code ms} (wall time of execute and of
 * reading the rows), and either {@code columns} and {@code rows} (each row a list of strings, SQL NULL as
 * null), or {@code update_count}, or {@code error}: {@code class}, {@code sql_state}, {@code error_code},
 * {@code message} of the SQLException (or other exception). A failed connection prints one line with
 * {@code "connect": false} and the error, and exits with status 2.
 */
public final class JdbcSession {
  private JdbcSession() {}

  public static void main(String[] args) throws IOException {
    if (args.length < 1) {
      System.err.println("usage: JdbcSession JDBC_URL [USER [PASSWORD]] < statements");
      System.exit(64);
    }
    String user = args.length > 1 ? args[1] : System.getProperty("user.name");
    String password = args.length > 2 ? args[2] : "";
    List<String> statements = read(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)));
    Connection connection;
    try {
      connection = DriverManager.getConnection(args[0], user, password);
    } catch (Exception e) {
      System.out.println("{\"connect\":false,\"error\":" + error(e) + "}");
      System.out.flush();
      System.exit(2);
      return;
    }
    try (Connection c = connection) {
      for (String sql : statements) {
        System.out.println(run(c, sql));
        System.out.flush();
      }
    } catch (SQLException e) {
      System.out.println("{\"close\":false,\"error\":" + error(e) + "}");
    }
  }

  static List<String> read(BufferedReader in) throws IOException {
    List<String> statements = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    String line;
    while ((line = in.readLine()) != null) {
      String trimmed = line.trim();
      if (current.length() == 0 && (trimmed.isEmpty() || trimmed.startsWith("--"))) {
        continue;
      }
      if (trimmed.endsWith(";")) {
        current.append(line, 0, line.lastIndexOf(';'));
        add(statements, current);
      } else {
        current.append(line).append('\n');
      }
    }
    add(statements, current);
    return statements;
  }

  private static void add(List<String> statements, StringBuilder current) {
    String sql = current.toString().trim();
    if (!sql.isEmpty()) {
      statements.add(sql);
    }
    current.setLength(0);
  }

  static String run(Connection connection, String sql) {
    StringBuilder out = new StringBuilder("{\"statement\":").append(quote(sql));
    long start = System.nanoTime();
    try (Statement statement = connection.createStatement()) {
      if (statement.execute(sql)) {
        try (ResultSet rows = statement.getResultSet()) {
          ResultSetMetaData meta = rows.getMetaData();
          int width = meta.getColumnCount();
          out.append(",\"columns\":[");
          for (int i = 1; i <= width; i++) {
            out.append(i > 1 ? "," : "").append(quote(meta.getColumnLabel(i)));
          }
          out.append("],\"rows\":[");
          boolean first = true;
          while (rows.next()) {
            out.append(first ? "[" : ",[");
            first = false;
            for (int i = 1; i <= width; i++) {
              out.append(i > 1 ? "," : "").append(quote(rows.getString(i)));
            }
            out.append(']');
          }
          out.append(']');
        }
      } else {
        out.append(",\"update_count\":").append(statement.getUpdateCount());
      }
    } catch (Exception e) {
      out.append(",\"error\":").append(error(e));
    }
    out.append(",\"ms\":").append((System.nanoTime() - start) / 1_000_000);
    return out.append('}').toString();
  }

  static String error(Throwable e) {
    StringBuilder out = new StringBuilder("{\"class\":").append(quote(e.getClass().getName()));
    if (e instanceof SQLException) {
      SQLException sql = (SQLException) e;
      out.append(",\"sql_state\":").append(quote(sql.getSQLState()));
      out.append(",\"error_code\":").append(sql.getErrorCode());
    }
    out.append(",\"message\":").append(quote(String.valueOf(e.getMessage())));
    Throwable cause = e.getCause();
    if (cause != null && cause != e) {
      out.append(",\"cause\":").append(quote(cause.getClass().getName() + ": " + cause.getMessage()));
    }
    return out.append('}').toString();
  }

  static String quote(String text) {
    if (text == null) {
      return "null";
    }
    StringBuilder out = new StringBuilder(text.length() + 2).append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"':
          out.append("\\\"");
          break;
        case '\\':
          out.append("\\\\");
          break;
        case '\n':
          out.append("\\n");
          break;
        case '\r':
          out.append("\\r");
          break;
        case '\t':
          out.append("\\t");
          break;
        default:
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
      }
    }
    return out.append('"').toString();
  }
}
