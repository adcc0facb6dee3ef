import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;

/**
 * Times metastore calls the way engines make them: Hive 2.3.10's generated Thrift client over a plain socket
 * with the binary protocol, as HiveMetaStoreClient connects.
 *
 * <p>Arguments: host port. Reads one call per line on stdin, tab-separated:
 * {@code label, repeat, method, args...}; runs it once to warm up, then {@code repeat} times, and prints one
 * JSON line per call: {@code {"label": ..., "first_ms": ..., "p50_ms": ..., "p95_ms": ..., "max_ms": ...,
 * "result": n}} (first_ms: the warm-up call), where
 * {@code n} is the size of the answer (partitions, names, or 1 for a single object).
 */
public final class HmsCallTimer {
  private HmsCallTimer() {}

  public static void main(String[] args) throws Exception {
    TSocket socket = new TSocket(args[0], Integer.parseInt(args[1]), 600_000);
    socket.open();
    ThriftHiveMetastore.Client client = new ThriftHiveMetastore.Client(new TBinaryProtocol(socket));
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
    for (String line; (line = in.readLine()) != null; ) {
      if (line.isEmpty()) {
        continue;
      }
      String[] f = line.split("\t", -1);
      String label = f[0];
      int repeat = Integer.parseInt(f[1]);
      String[] call = Arrays.copyOfRange(f, 2, f.length);
      long warmUp = System.nanoTime();
      int result = call(client, call);
      double firstMs = (System.nanoTime() - warmUp) / 1e6;
      List<Double> samples = new ArrayList<>();
      for (int i = 0; i < repeat; i++) {
        long started = System.nanoTime();
        result = call(client, call);
        samples.add((System.nanoTime() - started) / 1e6);
      }
      Collections.sort(samples);
      System.out.printf(
          "{\"label\": \"%s\", \"first_ms\": %.3f, \"p50_ms\": %.3f, \"p95_ms\": %.3f, \"max_ms\": %.3f, "
              + "\"result\": %d}%n",
          label.replace("\"", "\\\""), firstMs, percentile(samples, 0.50), percentile(samples, 0.95),
          samples.get(samples.size() - 1), result);
      System.out.flush();
    }
    socket.close();
  }

  private static double percentile(List<Double> sorted, double p) {
    int index = (int) Math.ceil(p * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(index, sorted.size() - 1)));
  }

  private static int call(ThriftHiveMetastore.Client c, String[] a) throws Exception {
    switch (a[0]) {
      case "get_database":
        c.get_database(a[1]);
        return 1;
      case "get_table":
        c.get_table(a[1], a[2]);
        return 1;
      case "get_all_tables":
        return c.get_all_tables(a[1]).size();
      case "get_partition_names":
        return c.get_partition_names(a[1], a[2], Short.parseShort(a[3])).size();
      case "get_partitions":
        return c.get_partitions(a[1], a[2], Short.parseShort(a[3])).size();
      case "get_partitions_by_filter":
        return c.get_partitions_by_filter(a[1], a[2], a[3], Short.parseShort(a[4])).size();
      case "get_partitions_by_names":
        return c.get_partitions_by_names(a[1], a[2], Arrays.asList(a[3].split(","))).size();
      case "get_partition_by_name":
        c.get_partition_by_name(a[1], a[2], a[3]);
        return 1;
      default:
        throw new IllegalArgumentException("unknown method " + a[0]);
    }
  }
}
