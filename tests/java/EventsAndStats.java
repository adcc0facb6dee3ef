import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.hadoop.hive.conf.HiveConf;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.IMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.AggrStats;
import org.apache.hadoop.hive.metastore.api.BinaryColumnStatsData;
import org.apache.hadoop.hive.metastore.api.BooleanColumnStatsData;
import org.apache.hadoop.hive.metastore.api.ColumnStatistics;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsData;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsDesc;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsObj;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.Date;
import org.apache.hadoop.hive.metastore.api.Decimal;
import org.apache.hadoop.hive.metastore.api.DecimalColumnStatsData;
import org.apache.hadoop.hive.metastore.api.DateColumnStatsData;
import org.apache.hadoop.hive.metastore.api.DoubleColumnStatsData;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.FireEventRequest;
import org.apache.hadoop.hive.metastore.api.FireEventRequestData;
import org.apache.hadoop.hive.metastore.api.Function;
import org.apache.hadoop.hive.metastore.api.FunctionType;
import org.apache.hadoop.hive.metastore.api.InsertEventRequestData;
import org.apache.hadoop.hive.metastore.api.LongColumnStatsData;
import org.apache.hadoop.hive.metastore.api.NotificationEvent;
import org.apache.hadoop.hive.metastore.api.NotificationEventResponse;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.PrincipalType;
import org.apache.hadoop.hive.metastore.api.ResourceType;
import org.apache.hadoop.hive.metastore.api.ResourceUri;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.StringColumnStatsData;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.messaging.AddPartitionMessage;
import org.apache.hadoop.hive.metastore.messaging.AlterPartitionMessage;
import org.apache.hadoop.hive.metastore.messaging.AlterTableMessage;
import org.apache.hadoop.hive.metastore.messaging.DropPartitionMessage;
import org.apache.hadoop.hive.metastore.messaging.InsertMessage;
import org.apache.hadoop.hive.metastore.messaging.MessageDeserializer;
import org.apache.hadoop.hive.metastore.messaging.MessageFactory;
import org.apache.thrift.TDeserializer;
import org.apache.thrift.protocol.TJSONProtocol;

/**
 * Hive 2.3.10's own metastore client against a metastore: column statistics of every type, and a scripted
 * session of catalog changes whose notification events are then read back and deserialized.
 *
 * <pre>
 *   stats   URI DB       column statistics of every 2.3 type: write, read, aggregate, delete (prints STATS lines)
 *   session URI DB       create/alter/drop of a database, a table, partitions and a function, and an insert event
 *   events  URI FROM     every event after FROM through getNextNotification, each message read by Hive's
 *                        MessageFactory deserializer (prints one EVENT line each)
 * </pre>
 *
 * <p>An EVENT line is {@code EVENT id type db table what}, where {@code what} names the objects read from the
 * message: the Thrift objects embedded in it (tables, partitions, functions, databases) and its key values.
 */
public class EventsAndStats {
    public static void main(String[] args) throws Exception {
        HiveConf conf = new HiveConf();
        conf.setVar(HiveConf.ConfVars.METASTOREURIS, args[1]);
        IMetaStoreClient client = new HiveMetaStoreClient(conf);
        try {
            switch (args[0]) {
                case "stats": stats(client, args[2]); break;
                case "session": session(client, args[2]); break;
                case "events": events(client, Long.parseLong(args[2])); break;
                default: throw new IllegalArgumentException(args[0]);
            }
        } finally {
            client.close();
        }
    }

    private static Table table(String db, String name) {
        List<FieldSchema> cols = Arrays.asList(
            new FieldSchema("flag", "boolean", null), new FieldSchema("qty", "int", null),
            new FieldSchema("price", "double", null), new FieldSchema("amount", "decimal(12,2)", null),
            new FieldSchema("name", "string", null), new FieldSchema("blob", "binary", null),
            new FieldSchema("day", "date", null));
        SerDeInfo serde = new SerDeInfo(null, "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
            new HashMap<>());
        StorageDescriptor sd = new StorageDescriptor(cols, null,
            "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
            "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat", false, -1, serde,
            new ArrayList<>(), new ArrayList<>(), new HashMap<>());
        Table t = new Table(name, db, "alice", 0, 0, 0, sd,
            Collections.singletonList(new FieldSchema("region", "string", null)), new HashMap<>(), null, null,
            "MANAGED_TABLE");
        return t;
    }

    private static Partition partition(Table t, String value) {
        StorageDescriptor sd = new StorageDescriptor(t.getSd());
        sd.setLocation(null);
        return new Partition(Collections.singletonList(value), t.getDbName(), t.getTableName(), 0, 0, sd,
            new HashMap<>());
    }

    private static Decimal decimal(String value) {
        BigDecimal d = new BigDecimal(value);
        return new Decimal(ByteBuffer.wrap(d.unscaledValue().toByteArray()), (short) d.scale());
    }

    private static List<ColumnStatisticsObj> everyType(long base) {
        List<ColumnStatisticsObj> objs = new ArrayList<>();
        objs.add(new ColumnStatisticsObj("flag", "boolean",
            ColumnStatisticsData.booleanStats(new BooleanColumnStatsData(7 + base, 2, 1))));
        LongColumnStatsData qty = new LongColumnStatsData(base, 5);
        qty.setLowValue(-3 - base);
        qty.setHighValue(1L << 40);
        objs.add(new ColumnStatisticsObj("qty", "int", ColumnStatisticsData.longStats(qty)));
        DoubleColumnStatsData price = new DoubleColumnStatsData(2, 9 + base);
        price.setLowValue(-0.5);
        price.setHighValue(1e300);
        objs.add(new ColumnStatisticsObj("price", "double", ColumnStatisticsData.doubleStats(price)));
        DecimalColumnStatsData amount = new DecimalColumnStatsData(0, 4);
        amount.setLowValue(decimal(base == 0 ? "-12345678901.25" : "-1.50"));
        amount.setHighValue(decimal("0.10"));
        objs.add(new ColumnStatisticsObj("amount", "decimal(12,2)", ColumnStatisticsData.decimalStats(amount)));
        objs.add(new ColumnStatisticsObj("name", "string",
            ColumnStatisticsData.stringStats(new StringColumnStatsData(40, 7.25, 3, 11 + base))));
        objs.add(new ColumnStatisticsObj("blob", "binary",
            ColumnStatisticsData.binaryStats(new BinaryColumnStatsData(1024, 100.5, base))));
        DateColumnStatsData day = new DateColumnStatsData(0, 30);
        day.setLowValue(new Date(19000 - base));
        day.setHighValue(new Date(19030));
        objs.add(new ColumnStatisticsObj("day", "date", ColumnStatisticsData.dateStats(day)));
        return objs;
    }

    private static void stats(IMetaStoreClient client, String db) throws Exception {
        client.createDatabase(new Database(db, null, null, new HashMap<>()));
        Table t = table(db, "sales");
        client.createTable(t);
        client.add_partition(partition(t, "eu"));
        client.add_partition(partition(t, "us"));
        List<String> cols = Arrays.asList("flag", "qty", "price", "amount", "name", "blob", "day");

        client.updateTableColumnStatistics(new ColumnStatistics(new ColumnStatisticsDesc(true, db, "sales"),
            everyType(0)));
        for (ColumnStatisticsObj o : client.getTableColumnStatistics(db, "sales", cols)) {
            System.out.println("TABLE " + o.getColName() + " " + o.getColType() + " " + o.getStatsData());
        }
        System.out.println("ACCURATE " + client.getTable(db, "sales").getParameters().get("COLUMN_STATS_ACCURATE"));
        for (String[] p : new String[][] {{"region=eu", "0"}, {"region=us", "1"}}) {
            ColumnStatisticsDesc desc = new ColumnStatisticsDesc(false, db, "sales");
            desc.setPartName(p[0]);
            client.updatePartitionColumnStatistics(new ColumnStatistics(desc, everyType(Long.parseLong(p[1]))));
        }
        Map<String, List<ColumnStatisticsObj>> byPartition = client.getPartitionColumnStatistics(db, "sales",
            Arrays.asList("region=eu", "region=us", "region=none"), cols);
        for (Map.Entry<String, List<ColumnStatisticsObj>> e : byPartition.entrySet()) {
            System.out.println("PARTITION " + e.getKey() + " " + e.getValue().size());
        }
        AggrStats aggr = client.getAggrColStatsFor(db, "sales", cols, Arrays.asList("region=eu", "region=us"));
        System.out.println("AGGR parts=" + aggr.getPartsFound());
        for (ColumnStatisticsObj o : aggr.getColStats()) {
            System.out.println("AGGR " + o.getColName() + " " + o.getStatsData());
        }
        client.deleteTableColumnStatistics(db, "sales", "qty");
        try {
            client.deleteTableColumnStatistics(db, "sales", "qty");
            System.out.println("DELETE_AGAIN ok");
        } catch (Exception e) {
            System.out.println("DELETE_AGAIN " + e.getClass().getSimpleName() + " " + e.getMessage());
        }
        try {
            ColumnStatistics bad = new ColumnStatistics(new ColumnStatisticsDesc(true, db, "sales"),
                Collections.singletonList(new ColumnStatisticsObj("nope", "int",
                    ColumnStatisticsData.longStats(new LongColumnStatsData(0, 1)))));
            client.updateTableColumnStatistics(bad);
            System.out.println("BAD_COLUMN ok");
        } catch (Exception e) {
            System.out.println("BAD_COLUMN " + e.getClass().getSimpleName() + " " + e.getMessage());
        }
        System.out.println("LEFT " + client.getTableColumnStatistics(db, "sales", cols).size());
    }

    private static void session(IMetaStoreClient client, String db) throws Exception {
        Map<String, String> params = new HashMap<>();
        client.createDatabase(new Database(db, "a database", null, params));
        Database altered = client.getDatabase(db);
        altered.putToParameters("owner", "ops");
        client.alterDatabase(db, altered);
        Table t = table(db, "sales");
        client.createTable(t);
        Table changed = client.getTable(db, "sales");
        changed.putToParameters("comment", "sales by region");
        client.alter_table(db, "sales", changed);
        client.add_partitions(Arrays.asList(partition(t, "eu"), partition(t, "us")));
        Partition eu = client.getPartition(db, "sales", Collections.singletonList("eu"));
        eu.putToParameters("checked", "yes");
        client.alter_partition(db, "sales", eu);
        Partition usa = client.getPartition(db, "sales", Collections.singletonList("us"));
        usa.setValues(Collections.singletonList("usa"));
        client.renamePartition(db, "sales", Collections.singletonList("us"), usa);
        client.dropPartition(db, "sales", Collections.singletonList("usa"), true);
        client.createFunction(new Function("to_eur", db, "com.example.ToEur", "alice", PrincipalType.USER, 0,
            FunctionType.JAVA, Collections.singletonList(new ResourceUri(ResourceType.JAR, "file:/tmp/eur.jar"))));
        client.dropFunction(db, "to_eur");
        FireEventRequest insert = new FireEventRequest(true, FireEventRequestData.insertData(
            new InsertEventRequestData(Arrays.asList("file:/data/part-0.parquet", "file:/data/part-1.parquet"))));
        insert.setDbName(db);
        insert.setTableName("sales");
        insert.setPartitionVals(Collections.singletonList("eu"));
        client.fireListenerEvent(insert);
        client.dropTable(db, "sales");
        client.dropDatabase(db);
        System.out.println("SESSION done");
    }

    private static String names(Iterable<Partition> partitions) {
        StringBuilder out = new StringBuilder();
        for (Partition p : partitions) {
            out.append(out.length() == 0 ? "" : ",").append(p.getTableName()).append(p.getValues());
        }
        return out.toString();
    }

    private static void events(IMetaStoreClient client, long from) throws Exception {
        NotificationEventResponse response = client.getNextNotification(from, 0, null);
        MessageDeserializer deserializer = MessageFactory.getInstance().getDeserializer();
        ObjectMapper mapper = new ObjectMapper();
        for (NotificationEvent e : response.getEvents()) {
            String m = e.getMessage();
            String what;
            switch (e.getEventType()) {
                case "CREATE_DATABASE": what = deserializer.getCreateDatabaseMessage(m).getDB(); break;
                case "DROP_DATABASE": what = deserializer.getDropDatabaseMessage(m).getDB(); break;
                case "ALTER_DATABASE": {  // a Hive 3 event, which Hive 2.3's deserializer does not know
                    JsonNode node = mapper.readTree(m);
                    Database before = new Database();
                    Database after = new Database();
                    new TDeserializer(new TJSONProtocol.Factory()).deserialize(before,
                        node.get("dbObjBeforeJson").asText(), "UTF-8");
                    new TDeserializer(new TJSONProtocol.Factory()).deserialize(after,
                        node.get("dbObjAfterJson").asText(), "UTF-8");
                    what = before.getName() + before.getParameters() + "->" + after.getName() + after.getParameters();
                    break;
                }
                case "CREATE_TABLE": what = deserializer.getCreateTableMessage(m).getTableObj().getTableName(); break;
                case "ALTER_TABLE": {
                    AlterTableMessage a = deserializer.getAlterTableMessage(m);
                    what = a.getTableObjBefore().getTableName() + "->" + a.getTableObjAfter().getTableName()
                        + a.getTableObjAfter().getParameters().get("comment");
                    break;
                }
                case "DROP_TABLE": what = deserializer.getDropTableMessage(m).getTable(); break;
                case "ADD_PARTITION": {
                    AddPartitionMessage a = deserializer.getAddPartitionMessage(m);
                    what = a.getTableObj().getTableName() + ":" + names(a.getPartitionObjs()) + ":" + a.getPartitions();
                    break;
                }
                case "ALTER_PARTITION": {
                    AlterPartitionMessage a = deserializer.getAlterPartitionMessage(m);
                    what = a.getTableObj().getTableName() + ":" + a.getKeyValues() + ":" + a.getPtnObjBefore().getValues()
                        + "->" + a.getPtnObjAfter().getValues() + a.getPtnObjAfter().getParameters().get("checked");
                    break;
                }
                case "DROP_PARTITION": {
                    DropPartitionMessage d = deserializer.getDropPartitionMessage(m);
                    what = d.getTableObj().getTableName() + ":" + d.getPartitions();
                    break;
                }
                case "CREATE_FUNCTION":
                    what = deserializer.getCreateFunctionMessage(m).getFunctionObj().getFunctionName(); break;
                case "DROP_FUNCTION": what = deserializer.getDropFunctionMessage(m).getFunctionName(); break;
                case "INSERT": {
                    InsertMessage i = deserializer.getInsertMessage(m);
                    what = i.getTable() + ":" + i.getPartitionKeyValues() + ":" + i.getFiles();
                    break;
                }
                default: what = "UNKNOWN";
            }
            System.out.println("EVENT " + e.getEventId() + " " + e.getEventType() + " " + e.getDbName() + " "
                + e.getTableName() + " " + e.getMessageFormat() + " " + what);
        }
        System.out.println("EVENTS " + response.getEventsSize());
    }
}
