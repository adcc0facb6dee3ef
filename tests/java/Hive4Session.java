import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.ColumnStatistics;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsData;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsDesc;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsObj;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.GetPartitionsFilterSpec;
import org.apache.hadoop.hive.metastore.api.GetPartitionsRequest;
import org.apache.hadoop.hive.metastore.api.GetProjectionsSpec;
import org.apache.hadoop.hive.metastore.api.InsertEventRequestData;
import org.apache.hadoop.hive.metastore.api.LongColumnStatsData;
import org.apache.hadoop.hive.metastore.api.NotificationEvent;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.PartitionFilterMode;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.WriteNotificationLogBatchRequest;
import org.apache.hadoop.hive.metastore.api.WriteNotificationLogRequest;
import org.apache.hadoop.hive.metastore.conf.MetastoreConf;
import org.apache.hadoop.hive.metastore.messaging.AcidWriteMessage;
import org.apache.hadoop.hive.metastore.messaging.json.JSONMessageDeserializer;

/**
 * The metastore calls of a HiveServer2 4 session, made by Hive 4's own metastore client
 * (HiveMetaStoreClient of hive-standalone-metastore 4.0.1) against the server at args[0]: each step prints
 * one line, "step<TAB>answer" (Thrift's toString of the answer, or "ERROR <class>: <message>").
 */
public class Hive4Session {
  interface Step {
    Object run() throws Exception;
  }

  private static void step(String name, Step step) {
    String answer;
    try {
      Object found = step.run();
      answer = String.valueOf(found);
    } catch (Exception e) {
      answer = "ERROR " + e.getClass().getSimpleName() + ": " + e.getMessage();
    }
    System.out.println(name + "\t" + answer.replace('\n', ' '));
  }

  private static StorageDescriptor descriptor(String location) {
    StorageDescriptor sd = new StorageDescriptor();
    sd.setCols(Arrays.asList(new FieldSchema("id", "bigint", "the key"), new FieldSchema("name", "string", null)));
    sd.setLocation(location);
    sd.setInputFormat("org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat");
    sd.setOutputFormat("org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat");
    sd.setSerdeInfo(new SerDeInfo(null, "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
        new HashMap<>()));
    sd.setNumBuckets(-1);
    sd.setBucketCols(new ArrayList<>());
    sd.setSortCols(new ArrayList<>());
    sd.setParameters(new HashMap<>());
    return sd;
  }

  private static WriteNotificationLogRequest writeNotification(long txn, long writeId, String db, String location,
      String ds, String hr) {
    InsertEventRequestData files = new InsertEventRequestData();
    String file = location + "/ds=" + ds + "/hr=" + hr + "/delta_" + writeId + "_" + writeId + "/bucket_00000";
    files.setFilesAdded(Collections.singletonList(file));
    files.setFilesAddedChecksum(Collections.singletonList("checksum"));
    WriteNotificationLogRequest request = new WriteNotificationLogRequest(txn, writeId, db, "events", files);
    request.setPartitionVals(Arrays.asList(ds, hr));
    return request;
  }

  public static void main(String[] args) throws Exception {
    Configuration conf = MetastoreConf.newMetastoreConf();
    MetastoreConf.setVar(conf, MetastoreConf.ConfVars.THRIFT_URIS, args[0]);
    MetastoreConf.setLongVar(conf, MetastoreConf.ConfVars.THRIFT_CONNECTION_RETRIES, 1);
    HiveMetaStoreClient client = new HiveMetaStoreClient(conf);
    String db = "hs2four";
    try {
      step("getCatalogs", () -> client.getCatalogs());
      Database database = new Database(db, "made by Hive 4's client", null, new HashMap<>());
      step("createDatabase", () -> { client.createDatabase(database); return "done"; });
      step("getDatabase", () -> client.getDatabase("hive", db));
      Table table = new Table();
      table.setDbName(db);
      table.setTableName("events");
      table.setTableType("EXTERNAL_TABLE");
      table.setSd(descriptor(null));
      table.setPartitionKeys(Arrays.asList(new FieldSchema("ds", "string", null), new FieldSchema("hr", "int", null)));
      Map<String, String> parameters = new HashMap<>();
      parameters.put("EXTERNAL", "TRUE");
      parameters.put("kind", "test");
      table.setParameters(parameters);
      step("createTable", () -> { client.createTable(table); return "done"; });
      Table created = client.getTable("hive", db, "events");
      step("getTable", () -> client.getTable("hive", db, "events"));
      String location = created.getSd().getLocation();
      List<Partition> partitions = new ArrayList<>();
      for (String ds : new String[] {"2024-01-01", "2024-01-02"}) {
        for (String hr : new String[] {"0", "1"}) {
          Partition partition = new Partition();
          partition.setDbName(db);
          partition.setTableName("events");
          partition.setValues(Arrays.asList(ds, hr));
          partition.setSd(descriptor(location + "/ds=" + ds + "/hr=" + hr));
          partition.setParameters(new HashMap<>());
          partitions.add(partition);
        }
      }
      step("add_partitions", () -> client.add_partitions(partitions, false, false));
      step("listPartitionNames", () -> client.listPartitionNames(db, "events", (short) -1));
      step("getPartitionsByNames",
          () -> client.getPartitionsByNames(db, "events", Arrays.asList("ds=2024-01-02/hr=1", "ds=2024-01-01/hr=0")));
      step("listPartitionsWithAuthInfo", () -> client.listPartitionsWithAuthInfo(db, "events",
          Collections.singletonList("2024-01-01"), (short) -1, "hive", Collections.singletonList("hive")));
      step("listPartitionsByFilter",
          () -> client.listPartitionsByFilter(db, "events", "ds = \"2024-01-02\" and hr = 1", (short) -1));
      step("getPartitionsWithSpecs", () -> {
        GetPartitionsRequest request = new GetPartitionsRequest(db, "events", new GetProjectionsSpec(),
            new GetPartitionsFilterSpec());
        request.getFilterSpec().setFilterMode(PartitionFilterMode.BY_NAMES);
        request.getFilterSpec().setFilters(Collections.singletonList("ds=2024-01-02/hr=0"));
        return client.getPartitionsWithSpecs(request).getPartitionSpec();
      });
      Table altered = created.deepCopy();
      altered.getParameters().put("kind", "altered");
      altered.getSd().addToCols(new FieldSchema("extra", "double", null));
      step("alter_table", () -> { client.alter_table(db, "events", altered); return "done"; });
      step("getSchema", () -> client.getSchema(db, "events"));
      ColumnStatisticsDesc desc = new ColumnStatisticsDesc(true, db, "events");
      LongColumnStatsData longs = new LongColumnStatsData(0, 9);
      longs.setLowValue(1);
      longs.setHighValue(9);
      ColumnStatisticsObj id = new ColumnStatisticsObj("id", "bigint", ColumnStatisticsData.longStats(longs));
      ColumnStatistics statistics = new ColumnStatistics(desc, Collections.singletonList(id));
      statistics.setEngine("hive");
      step("updateTableColumnStatistics", () -> client.updateTableColumnStatistics(statistics));
      step("getTableColumnStatistics",
          () -> client.getTableColumnStatistics(db, "events", Collections.singletonList("id"), "hive"));
      // a transactional INSERT's notification of the files it wrote, one partition and a batch of two
      long before = client.getCurrentNotificationEventId().getEventId();
      long txn = client.openTxn("hive");
      long writeId = client.allocateTableWriteId(txn, db, "events");
      step("addWriteNotificationLog", () -> {
        client.addWriteNotificationLog(writeNotification(txn, writeId, db, location, "2024-01-02", "1"));
        return "done";
      });
      step("addWriteNotificationLogInBatch", () -> {
        WriteNotificationLogBatchRequest batch = new WriteNotificationLogBatchRequest("hive", db, "events",
            Arrays.asList(writeNotification(txn, writeId, db, location, "2024-01-01", "0"),
                writeNotification(txn, writeId, db, location, "2024-01-01", "1")));
        client.addWriteNotificationLogInBatch(batch);
        return "done";
      });
      step("addWriteNotificationLog of a missing partition", () -> {
        client.addWriteNotificationLog(writeNotification(txn, writeId, db, location, "2099-01-01", "1"));
        return "done";
      });
      client.commitTxn(txn);
      step("the ACID_WRITE events, as Hive 4 reads them", () -> {
        List<String> writes = new ArrayList<>();
        JSONMessageDeserializer deserializer = new JSONMessageDeserializer();
        for (NotificationEvent event : client.getNextNotification(before, 100, null).getEvents()) {
          if (event.getEventType().equals("ACID_WRITE")) {
            AcidWriteMessage message = deserializer.getAcidWriteMessage(event.getMessage());
            writes.add(message.getDB() + "." + message.getTable() + " " + message.getPartition() + " txn "
                + (message.getTxnId() == txn) + " writeId " + message.getWriteId() + " " + message.getFiles()
                + " " + message.getPartitionObj().getValues() + " " + message.getTableObj().getTableName());
          }
        }
        return writes;
      });
      step("dropPartition", () -> client.dropPartition(db, "events", "ds=2024-01-01/hr=0", false));
      step("listPartitionNames after the drop", () -> client.listPartitionNames(db, "events", (short) -1));
      step("getTableMeta", () -> client.getTableMeta(db, "*", null));
      step("dropTable", () -> { client.dropTable(db, "events", false, false); return "done"; });
      step("getTable of a dropped table", () -> client.getTable("hive", db, "events"));
      step("dropDatabase", () -> { client.dropDatabase(db, false, false); return "done"; });
    } finally {
      client.close();
    }
  }
}
