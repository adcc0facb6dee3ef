import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.hadoop.hive.metastore.api.AggrStats;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsObj;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.GetTableRequest;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.NotificationEvent;
import org.apache.hadoop.hive.metastore.api.NotificationEventRequest;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.PartitionsByExprRequest;
import org.apache.hadoop.hive.metastore.api.PartitionsStatsRequest;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.TableStatsRequest;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TProtocolUtil;
import org.apache.thrift.protocol.TType;
import org.apache.thrift.transport.TMemoryInputTransport;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;

/**
 * Times metastore calls the way engines make them: Hive's generated Thrift client over a plain socket with the
 * binary protocol, as HiveMetaStoreClient connects. Compiled and run against Hive 2.3.10's jars or Hive
 * 4.0.1's: where their clients differ, {@link #GET_TABLE} chooses once, at start.
 *
 * <p>Arguments: host port. Reads one call per line on stdin, tab-separated:
 * {@code label, repeat, method, args...}; runs it {@code -Dhmscalltimer.warmups} times (1 by default) to warm
 * up (the server's caches, and this JVM's compiled code: a fresh JVM decodes 10,000 partitions twice as
 * slowly for its first ten calls), then {@code repeat} times, and prints one
 * JSON line per call: {@code {"label": ..., "first_ms": ..., "p50_ms": ..., "p95_ms": ..., "max_ms": ...,
 * "result": n, "samples_ms": [...], "digest": "..."}} (first_ms: the first warm-up call), where {@code n} is the
 * size of the answer (partitions, names, or 1 for a single object) and {@code digest} the SHA-1 of the
 * answer's sorted items, one per line (see {@link #items}), so that a caller can check the answer without
 * reading it. {@code repeat} 0 makes one call with no warm-up, timed as the only sample: calls that change
 * the catalog are timed that way. With {@code repeat} above 0 the line also has {@code decode_p50_ms}: the
 * client's own share, the time its generated code takes to decode the answer (the bytes of one more call,
 * decoded {@code repeat} times from memory), and {@code instant_p50_ms}: the same call made {@code repeat}
 * times on a server that does no work, a thread of this process writing those bytes back as soon as it has
 * read each request (see {@link #instantP50}); that is the time this client needs to take the answer off a
 * socket and decode it, and no server can answer this client faster. A call that fails prints
 * {@code {"label": ..., "error": "..."}} and the next line runs (on a new connection if the transport broke).
 *
 * <p>{@code label, repeat, concurrent, threads, method, args...} runs the call on {@code threads}
 * connections at once: each thread calls once to warm up, waits for the others, then calls {@code repeat}
 * times; the line has {@code calls_per_s} (all timed calls over the wall time from the start of the timed
 * calls to the end of the last thread's), {@code threads}, {@code calls}, {@code errors} and the percentiles
 * of all timed calls.
 *
 * <p>Methods and their arguments (values of one partition are the remaining arguments; a partition list
 * is {@code v1/v2,v1/v2,...}):
 * get_database db; get_table db tbl (Thrift get_table on Hive 2.3's client, get_table_req on Hive 4's, which
 * has no get_table); get_all_tables db; get_partition_names db tbl max;
 * get_partitions db tbl max; get_partitions_by_filter db tbl filter max; get_partitions_by_names db tbl
 * name,name,...; get_partition_by_name db tbl name; get_partition db tbl v...;
 * create_database db location; drop_database db (deleteData, no cascade); drop_database_if_exists db
 * (cascade, no data deleted; no error if missing); create_table db tbl location (the benchmark table:
 * external, Parquet, columns id bigint, name string, amount double, partition keys dt string, hr int);
 * add_partitions db tbl tableLocation partitionList (Thrift add_partitions, locations
 * tableLocation/dt=v1/hr=v2); alter_partition db tbl tableLocation v... (sets parameter hmsbench.altered);
 * drop_partition db tbl v... (deleteData); drop_table db tbl (deleteData);
 * get_table_statistics db tbl col,col,...; get_partitions_statistics db tbl col,... name,... (one item per
 * partition and column); get_aggr_stats db tbl col,... name,... (one item per column, and partsFound);
 * poll_notifications lastEvent maxEvents (get_next_notification in batches until an empty one: one item
 * per event).
 */
public final class HmsCallTimer {
  private HmsCallTimer() {}

  private static final String ALTERED = "hmsbench.altered";

  /** Untimed calls before a call's {@code repeat} timed ones (the first is reported as first_ms). */
  private static final int WARM_UPS = Math.max(1, Integer.getInteger("hmscalltimer.warmups", 1));

  /**
   * {@code Client.get_table(db, tbl)}, which Hive 2.3's engines call; null on Hive 4's client, which lacks it
   * (its engines call get_table_req). A static final handle: the JIT compiles the call as a direct one.
   */
  private static final MethodHandle GET_TABLE = findGetTable();

  private static MethodHandle findGetTable() {
    try {
      return MethodHandles.publicLookup().findVirtual(ThriftHiveMetastore.Client.class, "get_table",
          MethodType.methodType(Table.class, String.class, String.class));
    } catch (NoSuchMethodException e) {
      return null;
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  public static void main(String[] args) throws Exception {
    String host = args[0];
    int port = Integer.parseInt(args[1]);
    ThriftHiveMetastore.Client client = connect(host, port);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
    for (String line; (line = in.readLine()) != null; ) {
      if (line.isEmpty()) {
        continue;
      }
      String[] f = line.split("\t", -1);
      String label = f[0];
      int repeat = Integer.parseInt(f[1]);
      String[] call = Arrays.copyOfRange(f, 2, f.length);
      try {
        if (call[0].equals("concurrent")) {
          System.out.println(concurrent(host, port, label, repeat, Integer.parseInt(call[1]),
              Arrays.copyOfRange(call, 2, call.length)));
        } else {
          System.out.println(timed(client, label, repeat, call));
        }
      } catch (Exception e) {
        System.out.println("{\"label\": " + quote(label) + ", \"error\": " + quote(describe(e)) + "}");
        if (e instanceof TTransportException) {
          client.getInputProtocol().getTransport().close();
          client = connect(host, port);
        }
      }
      System.out.flush();
    }
    client.getInputProtocol().getTransport().close();
  }

  /** No cap on message size: a table's whole partition list can exceed libthrift's default of 100 MB. */
  private static final TConfiguration CONFIG =
      new TConfiguration(Integer.MAX_VALUE, Integer.MAX_VALUE, TConfiguration.DEFAULT_RECURSION_DEPTH);

  private static ThriftHiveMetastore.Client connect(String host, int port) throws TTransportException {
    TSocket socket = new TSocket(CONFIG, host, port, 600_000);
    socket.open();
    return new ThriftHiveMetastore.Client(new TBinaryProtocol(new RecordingTransport(socket)));
  }

  /** The socket, keeping a copy of the bytes read while {@link #copy} is set (one answer). */
  private static final class RecordingTransport extends TTransport {
    private final TTransport socket;
    ByteArrayOutputStream copy;

    RecordingTransport(TTransport socket) {
      this.socket = socket;
    }

    @Override
    public int read(byte[] buf, int off, int len) throws TTransportException {
      int n = socket.read(buf, off, len);
      if (copy != null && n > 0) {
        copy.write(buf, off, n);
      }
      return n;
    }

    @Override
    public void write(byte[] buf, int off, int len) throws TTransportException {
      socket.write(buf, off, len);
    }

    @Override
    public void flush() throws TTransportException {
      socket.flush();
    }

    @Override
    public boolean isOpen() {
      return socket.isOpen();
    }

    @Override
    public void open() throws TTransportException {
      socket.open();
    }

    @Override
    public void close() {
      socket.close();
    }

    @Override
    public TConfiguration getConfiguration() {
      return socket.getConfiguration();
    }

    @Override
    public void updateKnownMessageSize(long size) throws TTransportException {
      socket.updateKnownMessageSize(size);
    }

    @Override
    public void checkReadBytesAvailable(long numBytes) throws TTransportException {
      socket.checkReadBytesAvailable(numBytes);
    }
  }

  /** The answer of one more {@code call}, as the bytes the client read. */
  private static byte[] answerBytes(ThriftHiveMetastore.Client client, String[] call) throws Exception {
    RecordingTransport transport = (RecordingTransport) client.getInputProtocol().getTransport();
    transport.copy = new ByteArrayOutputStream();
    try {
      call(client, call);
      return transport.copy.toByteArray();
    } finally {
      transport.copy = null;
    }
  }

  /** Where the sequence id of {@code reply} (a binary-protocol message) starts: after its type and name. */
  private static int sequenceIdOffset(byte[] reply) {
    return 8 + ByteBuffer.wrap(reply).getInt(4);
  }

  /**
   * The p50 of decoding {@code reply} (a binary-protocol answer) {@code repeat} times with the generated
   * {@code recv_<method>}, after {@link #WARM_UPS} untimed decodings.
   */
  private static double decodeP50(byte[] reply, int repeat) throws Exception {
    int nameLength = sequenceIdOffset(reply) - 8;
    String method = new String(reply, 8, nameLength, StandardCharsets.UTF_8);
    reply = reply.clone();
    Arrays.fill(reply, 8 + nameLength, 12 + nameLength, (byte) 0); // the sequence id a fresh client expects
    Method recv = ThriftHiveMetastore.Client.class.getMethod("recv_" + method);
    List<Double> samples = new ArrayList<>();
    for (int i = 0; i < WARM_UPS + repeat; i++) {
      ThriftHiveMetastore.Client decoder =
          new ThriftHiveMetastore.Client(new TBinaryProtocol(new TMemoryInputTransport(CONFIG, reply)));
      long started = System.nanoTime();
      recv.invoke(decoder);
      if (i >= WARM_UPS) {
        samples.add((System.nanoTime() - started) / 1e6);
      }
    }
    Collections.sort(samples);
    return percentile(samples, 0.50);
  }

  /**
   * The p50 of {@code call} made {@code repeat} times (after {@link #WARM_UPS}) on a new connection to a server
   * that does no work: a thread of this process that reads each request and writes {@code reply} back with
   * the request's sequence id. What is left is this client's own cost of a call whose answer is
   * {@code reply}: writing the request, reading the answer off a loopback socket and decoding it.
   */
  private static double instantP50(byte[] reply, String[] call, int repeat) throws Exception {
    try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Thread server = new Thread(() -> answerInstantly(listener, reply), "instant-server");
      server.setDaemon(true);
      server.start();
      ThriftHiveMetastore.Client client = connect(listener.getInetAddress().getHostAddress(), listener.getLocalPort());
      try {
        List<Double> samples = new ArrayList<>();
        for (int i = 0; i < WARM_UPS + repeat; i++) {
          long started = System.nanoTime();
          call(client, call);
          if (i >= WARM_UPS) {
            samples.add((System.nanoTime() - started) / 1e6);
          }
        }
        Collections.sort(samples);
        return percentile(samples, 0.50);
      } finally {
        client.getInputProtocol().getTransport().close();
      }
    }
  }

  /** Answers every request of the first connection to {@code listener} with {@code reply}, until it closes. */
  private static void answerInstantly(ServerSocket listener, byte[] reply) {
    byte[] answer = reply.clone();
    ByteBuffer sequenceId = ByteBuffer.wrap(answer, sequenceIdOffset(answer), 4);
    try (Socket socket = listener.accept()) {
      socket.setTcpNoDelay(true);
      TBinaryProtocol requests = new TBinaryProtocol(new TSocket(socket));
      OutputStream out = socket.getOutputStream();
      while (true) {
        TMessage request = requests.readMessageBegin();
        TProtocolUtil.skip(requests, TType.STRUCT);
        requests.readMessageEnd();
        sequenceId.putInt(sequenceId.position(), request.seqid);
        out.write(answer);
        out.flush();
      }
    } catch (TTransportException | IOException e) {
      // the client closed the connection: done
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static String timed(ThriftHiveMetastore.Client client, String label, int repeat, String[] call)
      throws Exception {
    long warmUp = System.nanoTime();
    Object answer = call(client, call);
    double firstMs = (System.nanoTime() - warmUp) / 1e6;
    List<Double> samples = new ArrayList<>();
    if (repeat == 0) {
      samples.add(firstMs);
    }
    for (int i = 1; i < WARM_UPS && repeat > 0; i++) {
      call(client, call);
    }
    for (int i = 0; i < repeat; i++) {
      long started = System.nanoTime();
      answer = call(client, call);
      samples.add((System.nanoTime() - started) / 1e6);
    }
    List<String> items = items(answer);
    List<Double> sorted = new ArrayList<>(samples);
    Collections.sort(sorted);
    String floors = "";
    if (repeat > 0) {
      byte[] reply = answerBytes(client, call);
      floors = String.format(Locale.ROOT, ", \"decode_p50_ms\": %.3f, \"instant_p50_ms\": %.3f",
          decodeP50(reply, repeat), instantP50(reply, call, repeat));
    }
    return String.format(Locale.ROOT,
        "{\"label\": %s, \"first_ms\": %.3f, \"p50_ms\": %.3f, \"p95_ms\": %.3f, \"max_ms\": %.3f, "
            + "\"result\": %d, \"digest\": \"%s\"%s, \"samples_ms\": %s}",
        quote(label), firstMs, percentile(sorted, 0.50), percentile(sorted, 0.95),
        sorted.get(sorted.size() - 1), size(answer, items), digest(items), floors, json(samples));
  }

  private static String concurrent(String host, int port, String label, int repeat, int threads, String[] call)
      throws Exception {
    List<ThriftHiveMetastore.Client> clients = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      clients.add(connect(host, port));
    }
    CyclicBarrier ready = new CyclicBarrier(threads + 1);
    AtomicInteger errors = new AtomicInteger();
    AtomicReference<String> firstError = new AtomicReference<>();
    List<List<Double>> perThread = new ArrayList<>();
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      ThriftHiveMetastore.Client c = clients.get(t);
      List<Double> samples = new ArrayList<>();
      perThread.add(samples);
      Thread worker = new Thread(() -> {
        try {
          try {
            call(c, call);
          } catch (Exception e) {
            errors.incrementAndGet();
            firstError.compareAndSet(null, describe(e));
          }
          ready.await();
          for (int i = 0; i < repeat; i++) {
            long started = System.nanoTime();
            try {
              call(c, call);
            } catch (Exception e) {
              errors.incrementAndGet();
              firstError.compareAndSet(null, describe(e));
            }
            samples.add((System.nanoTime() - started) / 1e6);
          }
        } catch (Exception e) {
          errors.incrementAndGet();
          firstError.compareAndSet(null, describe(e));
        }
      });
      workers.add(worker);
      worker.start();
    }
    ready.await();
    long started = System.nanoTime();
    for (Thread worker : workers) {
      worker.join();
    }
    double wallS = (System.nanoTime() - started) / 1e9;
    for (ThriftHiveMetastore.Client c : clients) {
      c.getInputProtocol().getTransport().close();
    }
    List<Double> all = new ArrayList<>();
    for (List<Double> samples : perThread) {
      all.addAll(samples);
    }
    Collections.sort(all);
    StringBuilder out = new StringBuilder();
    out.append(String.format(Locale.ROOT,
        "{\"label\": %s, \"threads\": %d, \"calls\": %d, \"errors\": %d, \"wall_s\": %.3f, "
            + "\"calls_per_s\": %.1f, \"p50_ms\": %.3f, \"p95_ms\": %.3f, \"max_ms\": %.3f",
        quote(label), threads, all.size(), errors.get(), wallS, all.size() / wallS,
        percentile(all, 0.50), percentile(all, 0.95), all.isEmpty() ? 0.0 : all.get(all.size() - 1)));
    if (firstError.get() != null) {
      out.append(", \"error\": ").append(quote(firstError.get()));
    }
    return out.append("}").toString();
  }

  private static double percentile(List<Double> sorted, double p) {
    if (sorted.isEmpty()) {
      return 0.0;
    }
    int index = (int) Math.ceil(p * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(index, sorted.size() - 1)));
  }

  private static Object call(ThriftHiveMetastore.Client c, String[] a) throws Exception {
    switch (a[0]) {
      case "get_database":
        return c.get_database(a[1]);
      case "get_table":
        return getTable(c, a[1], a[2]);
      case "get_all_tables":
        return c.get_all_tables(a[1]);
      case "get_partition_names":
        return c.get_partition_names(a[1], a[2], Short.parseShort(a[3]));
      case "get_partitions":
        return c.get_partitions(a[1], a[2], Short.parseShort(a[3]));
      case "get_partitions_by_filter":
        return c.get_partitions_by_filter(a[1], a[2], a[3], Short.parseShort(a[4]));
      case "get_partitions_by_names":
        return c.get_partitions_by_names(a[1], a[2], Arrays.asList(a[3].split(",")));
      case "get_partition_by_name":
        return c.get_partition_by_name(a[1], a[2], a[3]);
      case "get_partition":
        return c.get_partition(a[1], a[2], values(a, 3));
      case "get_partitions_by_expr":
        return c.get_partitions_by_expr(new PartitionsByExprRequest(a[1], a[2],
            ByteBuffer.wrap(java.util.Base64.getDecoder().decode(a[3])))).getPartitions();
      case "create_database":
        c.create_database(new Database(a[1], "hmsbench", a[2], new HashMap<>()));
        return null;
      case "drop_database":
        c.drop_database(a[1], true, false);
        return null;
      case "drop_database_if_exists":
        try {
          c.get_database(a[1]);
        } catch (NoSuchObjectException e) {
          return null; // (Hive 2.3 answers dropping a missing database with cascade by a MetaException)
        }
        c.drop_database(a[1], false, true);
        return null;
      case "create_table":
        c.create_table(table(a[1], a[2], a[3]));
        return null;
      case "add_partitions": {
        List<Partition> parts = new ArrayList<>();
        for (String spec : a[4].split(",")) {
          parts.add(partition(a[1], a[2], a[3], Arrays.asList(spec.split("/"))));
        }
        return c.add_partitions(parts);
      }
      case "alter_partition": {
        Partition part = partition(a[1], a[2], a[3], values(a, 4));
        part.getParameters().put(ALTERED, "true");
        c.alter_partition(a[1], a[2], part);
        return null;
      }
      case "drop_partition":
        return c.drop_partition(a[1], a[2], values(a, 3), true);
      case "drop_table":
        c.drop_table(a[1], a[2], true);
        return null;
      case "get_table_statistics":
        return c.get_table_statistics_req(new TableStatsRequest(a[1], a[2], Arrays.asList(a[3].split(","))))
            .getTableStats();
      case "get_partitions_statistics": {
        Map<String, List<ColumnStatisticsObj>> byPartition = c.get_partitions_statistics_req(
            new PartitionsStatsRequest(a[1], a[2], Arrays.asList(a[3].split(",")), Arrays.asList(a[4].split(","))))
            .getPartStats();
        List<String> items = new ArrayList<>();
        for (Map.Entry<String, List<ColumnStatisticsObj>> e : byPartition.entrySet()) {
          for (ColumnStatisticsObj o : e.getValue()) {
            items.add(e.getKey() + " " + item(o));
          }
        }
        return items;
      }
      case "get_aggr_stats": {
        AggrStats aggr = c.get_aggr_stats_for(new PartitionsStatsRequest(a[1], a[2],
            Arrays.asList(a[3].split(",")), Arrays.asList(a[4].split(","))));
        List<Object> items = new ArrayList<>(aggr.getColStats());
        items.add("partsFound=" + aggr.getPartsFound());
        return items;
      }
      case "poll_notifications": {
        // a consumer reading every event after lastEvent in batches of maxEvents, as Impala's catalogd does
        long last = Long.parseLong(a[1]);
        List<String> seen = new ArrayList<>();
        while (true) {
          NotificationEventRequest request = new NotificationEventRequest(last);
          request.setMaxEvents(Integer.parseInt(a[2]));
          List<NotificationEvent> batch = c.get_next_notification(request).getEvents();
          if (batch.isEmpty()) {
            return seen;
          }
          for (NotificationEvent e : batch) {
            seen.add(e.getEventId() + " " + e.getEventType() + " " + e.getMessage().length());
          }
          last = batch.get(batch.size() - 1).getEventId();
        }
      }
      default:
        throw new IllegalArgumentException("unknown method " + a[0]);
    }
  }

  private static Table getTable(ThriftHiveMetastore.Client c, String db, String tbl) throws Exception {
    if (GET_TABLE == null) {
      return c.get_table_req(new GetTableRequest(db, tbl)).getTable();
    }
    try {
      return (Table) GET_TABLE.invokeExact(c, db, tbl);
    } catch (Exception | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<String> values(String[] a, int from) {
    return Arrays.asList(Arrays.copyOfRange(a, from, a.length));
  }

  private static List<FieldSchema> columns() {
    return new ArrayList<>(Arrays.asList(new FieldSchema("id", "bigint", null),
        new FieldSchema("name", "string", null), new FieldSchema("amount", "double", null)));
  }

  private static StorageDescriptor sd(String location) {
    Map<String, String> serdeParams = new HashMap<>();
    serdeParams.put("serialization.format", "1");
    SerDeInfo serde = new SerDeInfo(null, "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
        serdeParams);
    StorageDescriptor sd = new StorageDescriptor(columns(), location,
        "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
        "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat", false, -1, serde,
        new ArrayList<>(), new ArrayList<>(), new HashMap<>());
    return sd;
  }

  private static Table table(String db, String name, String location) {
    Map<String, String> params = new HashMap<>();
    params.put("EXTERNAL", "TRUE");
    List<FieldSchema> keys = Arrays.asList(new FieldSchema("dt", "string", null),
        new FieldSchema("hr", "int", null));
    int now = (int) (System.currentTimeMillis() / 1000);
    return new Table(name, db, "hmsbench", now, 0, 0, sd(location), new ArrayList<>(keys), params, null, null,
        "EXTERNAL_TABLE");
  }

  private static Partition partition(String db, String tbl, String tableLocation, List<String> values) {
    String location = tableLocation + "/dt=" + values.get(0) + "/hr=" + values.get(1);
    int now = (int) (System.currentTimeMillis() / 1000);
    return new Partition(new ArrayList<>(values), db, tbl, now, 0, sd(location), new HashMap<>());
  }

  /** The answer as lines: names, or one per object (see the class comment of the benchmark). */
  private static List<String> items(Object answer) {
    List<String> items = new ArrayList<>();
    if (answer instanceof List) {
      for (Object item : (List<?>) answer) {
        items.add(item(item));
      }
    } else if (answer != null) {
      items.add(item(answer));
    }
    Collections.sort(items);
    return items;
  }

  private static String item(Object o) {
    if (o instanceof ColumnStatisticsObj) {  // names and values (Hive 2.3 writes no bit vectors)
      ColumnStatisticsObj c = (ColumnStatisticsObj) o;
      return c.getColName() + ":" + c.getColType() + ":" + c.getStatsData();
    }
    if (o instanceof Partition) {
      Partition p = (Partition) o;
      String altered = p.getParameters() == null ? null : p.getParameters().get(ALTERED);
      return String.join("/", p.getValues()) + (altered == null ? "" : " " + ALTERED + "=" + altered);
    }
    if (o instanceof Table) {
      Table t = (Table) o;
      List<String> keys = new ArrayList<>();
      for (FieldSchema k : t.getPartitionKeys()) {
        keys.add(k.getName() + ":" + k.getType());
      }
      return t.getDbName() + "." + t.getTableName() + " " + String.join(",", keys);
    }
    if (o instanceof Database) {
      return ((Database) o).getName();
    }
    return String.valueOf(o);
  }

  private static int size(Object answer, List<String> items) {
    if (answer instanceof Integer) {
      return (Integer) answer;
    }
    return items.size();
  }

  private static String digest(List<String> items) throws Exception {
    MessageDigest sha = MessageDigest.getInstance("SHA-1");
    sha.update(String.join("\n", items).getBytes(StandardCharsets.UTF_8));
    StringBuilder hex = new StringBuilder();
    for (byte b : sha.digest()) {
      hex.append(String.format("%02x", b));
    }
    return hex.toString();
  }

  private static String describe(Throwable e) {
    return e.getClass().getSimpleName() + ": " + e.getMessage();
  }

  private static String json(List<Double> samples) {
    StringBuilder out = new StringBuilder("[");
    for (int i = 0; i < samples.size(); i++) {
      out.append(i == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.3f", samples.get(i)));
    }
    return out.append("]").toString();
  }

  private static String quote(String s) {
    StringBuilder out = new StringBuilder("\"");
    for (char ch : String.valueOf(s).toCharArray()) {
      if (ch == '"' || ch == '\\') {
        out.append('\\').append(ch);
      } else if (ch < 0x20) {
        out.append(String.format("\\u%04x", (int) ch));
      } else {
        out.append(ch);
      }
    }
    return out.append('"').toString();
  }
}
