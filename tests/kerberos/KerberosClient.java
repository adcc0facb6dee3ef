import java.util.HashMap;

import org.apache.hadoop.hive.conf.HiveConf;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.shims.Utils;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * Hive 2.3.10's metastore client with hive.metastore.sasl.enabled, as Hive and Spark run it.
 *
 * kerberos URI PRINCIPAL RENEWER DB: with the ticket cache, creates database DB, lists the databases and
 * gets a delegation token renewable by RENEWER; prints "DATABASES [...]" and "TOKEN ...".
 * token URI PRINCIPAL TOKEN: with no ticket, authenticates with the token (hive.metastore.token.signature,
 * as Hive's tasks do) and lists the databases; prints "DATABASES [...]".
 * The quality of protection comes from hadoop.rpc.protection in core-site.xml on the class path.
 */
public class KerberosClient {
    public static void main(String[] args) throws Exception {
        String mode = args[0];
        HiveConf conf = new HiveConf();
        conf.setVar(HiveConf.ConfVars.METASTOREURIS, args[1]);
        conf.setBoolVar(HiveConf.ConfVars.METASTORE_USE_THRIFT_SASL, true);
        conf.setVar(HiveConf.ConfVars.METASTORE_KERBEROS_PRINCIPAL, args[2]);
        conf.setIntVar(HiveConf.ConfVars.METASTORETHRIFTCONNECTIONRETRIES, 1);
        UserGroupInformation.setConfiguration(conf);
        if (mode.equals("token")) {
            Utils.setTokenStr(UserGroupInformation.getCurrentUser(), args[3], "hudi-metastore");
            conf.setVar(HiveConf.ConfVars.METASTORE_TOKEN_SIGNATURE, "hudi-metastore");
        }
        HiveMetaStoreClient client = new HiveMetaStoreClient(conf);
        try {
            if (mode.equals("kerberos")) {
                client.createDatabase(new Database(args[4], "made over Kerberos", null, new HashMap<>()));
            }
            System.out.println("DATABASES " + client.getAllDatabases());
            if (mode.equals("kerberos")) {
                String owner = UserGroupInformation.getCurrentUser().getShortUserName();
                System.out.println("TOKEN " + client.getDelegationToken(owner, args[3]));
            }
        } finally {
            client.close();
        }
    }
}
