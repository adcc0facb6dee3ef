import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.ResultKind;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * A Flink SQL session in batch mode: one statement per line of standard input, one answer per statement on
 * standard output, as a line "@flink " followed by JSON: {"rows": [[cell, ...], ...]} or {"error": "..."}
 * (the exception's class and message, and its root cause's).
 *
 * <p>The jobs run on one MiniCluster started here and reached as a remote cluster: a MiniCluster per job
 * (Flink's local executor) shuts down before the statement's result can be awaited. {@code SET 'key' =
 * 'value'} lines set the session's configuration, as Flink's SQL client does.
 */
public final class FlinkSession {
  private static final Pattern SET = Pattern.compile("SET\\s+'([^']+)'\\s*=\\s*'([^']*)'", Pattern.CASE_INSENSITIVE);

  public static void main(String[] args) throws Exception {
    Configuration conf = new Configuration();
    MiniCluster cluster =
        new MiniCluster(
            new MiniClusterConfiguration.Builder()
                .setConfiguration(conf)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(2)
                .build());
    cluster.start();
    URI rest = cluster.getRestAddress().get();
    conf.set(DeploymentOptions.TARGET, "remote");
    conf.set(RestOptions.ADDRESS, rest.getHost());
    conf.set(RestOptions.PORT, rest.getPort());
    TableEnvironment env =
        TableEnvironment.create(EnvironmentSettings.newInstance().inBatchMode().withConfiguration(conf).build());
    ObjectMapper json = new ObjectMapper();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      if (!line.isBlank()) {
        System.out.println("@flink " + json.writeValueAsString(answer(env, line.strip())));
        System.out.flush();
      }
    }
    cluster.close();
    System.exit(0);
  }

  private static Map<String, Object> answer(TableEnvironment env, String statement) {
    Map<String, Object> answer = new LinkedHashMap<>();
    try {
      Matcher set = SET.matcher(statement);
      List<List<String>> rows = new ArrayList<>();
      if (set.matches()) {
        env.getConfig().getConfiguration().setString(set.group(1), set.group(2));
      } else {
        TableResult result = env.executeSql(statement);
        if (result.getResultKind() == ResultKind.SUCCESS_WITH_CONTENT) {
          try (CloseableIterator<Row> it = result.collect()) {
            while (it.hasNext()) {
              Row row = it.next();
              List<String> cells = new ArrayList<>();
              for (int i = 0; i < row.getArity(); i++) {
                cells.add(String.valueOf(row.getField(i)));
              }
              rows.add(cells);
            }
          }
        }
      }
      answer.put("rows", rows);
    } catch (Exception error) {
      Throwable root = error;
      while (root.getCause() != null) {
        root = root.getCause();
      }
      String text = error.getClass().getName() + ": " + error.getMessage();
      answer.put("error", root == error ? text : text + " / " + root.getClass().getName() + ": " + root.getMessage());
    }
    return answer;
  }
}
