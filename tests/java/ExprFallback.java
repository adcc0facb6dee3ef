import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.hive.conf.HiveConf;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.IMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Partition;

/**
 * Hive 2.3.10's own metastore client against hudi-metastore: listPartitionsByExpr of bytes that are no
 * expression the server can read must raise IncompatibleMetastoreException (what Hive catches to prune in
 * its own memory), then the filter path must answer.
 * Arguments: metastore URI, database, table, filter. Prints one line per outcome.
 */
public class ExprFallback {
    public static void main(String[] args) throws Exception {
        HiveConf conf = new HiveConf();
        conf.set("hive.metastore.uris", args[0]);
        IMetaStoreClient client = new HiveMetaStoreClient(conf);
        try {
            List<Partition> result = new ArrayList<>();
            client.listPartitionsByExpr(args[1], args[2], new byte[] {1, 2, 3}, "__HIVE_DEFAULT_PARTITION__",
                    (short) -1, result);
            System.out.println("EXPR_ANSWERED " + result.size());
        } catch (IMetaStoreClient.IncompatibleMetastoreException e) {
            System.out.println("FALLBACK");
        }
        List<Partition> filtered = client.listPartitionsByFilter(args[1], args[2], args[3], (short) -1);
        System.out.println("FILTER " + filtered.size());
        client.close();
    }
}
