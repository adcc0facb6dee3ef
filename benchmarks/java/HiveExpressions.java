import java.io.*;
import java.nio.ByteBuffer;
import java.util.*;
import org.apache.commons.lang3.tuple.Pair;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.IMetaStoreClient;
import org.apache.hadoop.hive.metastore.PartitionDropOptions;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.PartitionSpec;
import org.apache.hadoop.hive.metastore.api.PartitionsByExprRequest;
import org.apache.hadoop.hive.metastore.partition.spec.PartitionSpecProxy;
import org.apache.hadoop.hive.metastore.conf.MetastoreConf;
import org.apache.hadoop.hive.common.type.*;
import org.apache.hadoop.hive.ql.exec.FunctionRegistry;
import org.apache.hadoop.hive.ql.exec.SerializationUtilities;
import org.apache.hadoop.hive.ql.plan.*;
import org.apache.hadoop.hive.ql.udf.generic.GenericUDF;
import org.apache.hadoop.hive.serde2.typeinfo.*;
import org.apache.hive.com.esotericsoftware.kryo.Kryo;
import org.apache.hive.com.esotericsoftware.kryo.Serializer;
import org.apache.hive.com.esotericsoftware.kryo.io.Output;

/**
 * Hive's partition expressions, built with Hive's own classes (ExprNodeGenericFuncDesc over column and
 * constant descriptors, functions from its FunctionRegistry) from a prefix form read one per line on stdin:
 * (col NAME TYPE), (const TYPE VALUE) with VALUE a "quoted" text or null, (FUNCTION ARG...); a type's
 * parameters in brackets (decimal[10,2]).
 *
 * serialize: prints each expression as Hive's SerializationUtilities writes it (base64), a tab, and Hive's
 *   getExprString of it. Against Hive 4.0.1's jar that is Hive 4's stream; against 3.1.3's, Hive 3's.
 * list|specs|names|drop URI DB TABLE: sends each expression to the metastore at URI through Hive 4's own
 *   HiveMetaStoreClient (listPartitionsByExpr, listPartitionsSpecByExpr as HiveServer2 4 prunes,
 *   listPartitionNames by expression, dropPartitions by expression) and prints the partition names it answers (sorted), "FALLBACK <message>" when the client
 *   throws the IncompatibleMetastoreException on which Hive prunes in its own memory, or "ERROR <class>:
 *   <message>".
 */
public class HiveExpressions {
  private final List<String> tokens = new ArrayList<>();
  private int at;

  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
    PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
    IMetaStoreClient client = args.length > 1 ? client(args[1]) : null;
    for (String line; (line = in.readLine()) != null; ) {
      String answer;
      try {
        ExprNodeDesc expr = new HiveExpressions(line).node();
        if (client == null) {
          answer = Base64.getEncoder().encodeToString(serialize(expr)) + "\t" + expr.getExprString();
        } else {
          answer = String.valueOf(call(client, args[0], args[2], args[3], serialize(expr)));
        }
      } catch (IMetaStoreClient.IncompatibleMetastoreException e) {
        answer = "FALLBACK " + e.getMessage();
      } catch (Exception e) {
        answer = "ERROR " + e.getClass().getSimpleName() + ": " + e.getMessage();
      }
      out.println(answer.replace('\n', ' '));
    }
    if (client != null) client.close();
  }

  static IMetaStoreClient client(String uri) throws Exception {
    Configuration conf = MetastoreConf.newMetastoreConf();
    MetastoreConf.setVar(conf, MetastoreConf.ConfVars.THRIFT_URIS, uri);
    MetastoreConf.setLongVar(conf, MetastoreConf.ConfVars.THRIFT_CONNECTION_RETRIES, 1);
    return new HiveMetaStoreClient(conf);
  }

  static List<String> call(IMetaStoreClient client, String mode, String db, String table, byte[] expr) throws Exception {
    List<String> names = new ArrayList<>();
    if (mode.equals("list")) {
      List<Partition> found = new ArrayList<>();
      client.listPartitionsByExpr(db, table, expr, null, (short) -1, found);
      for (Partition p : found) names.add(String.join("/", p.getValues()));
    } else if (mode.equals("specs")) {
      PartitionsByExprRequest request = new PartitionsByExprRequest(db, table, ByteBuffer.wrap(expr));
      List<PartitionSpec> specs = new ArrayList<>();
      client.listPartitionsSpecByExpr(request, specs);
      PartitionSpecProxy.PartitionIterator partitions = PartitionSpecProxy.Factory.get(specs).getPartitionIterator();
      while (partitions.hasNext()) names.add(String.join("/", partitions.next().getValues()));
    } else if (mode.equals("names")) {
      names.addAll(client.listPartitionNames(new PartitionsByExprRequest(db, table, ByteBuffer.wrap(expr))));
    } else if (mode.equals("drop")) {
      PartitionDropOptions options = PartitionDropOptions.instance().deleteData(true).ifExists(false).returnResults(true);
      List<Pair<Integer, byte[]>> exprs = new ArrayList<>();
      exprs.add(Pair.of(0, expr));
      for (Partition p : client.dropPartitions(db, table, exprs, options)) names.add(String.join("/", p.getValues()));
    } else {
      throw new IllegalArgumentException("no mode " + mode);
    }
    Collections.sort(names);
    return names;
  }

  static byte[] serialize(ExprNodeDesc expr) throws Exception {
    try {
      return (byte[]) SerializationUtilities.class.getMethod("serializeObjectWithTypeInformation", Serializable.class).invoke(null, expr);
    } catch (NoSuchMethodException hive3) {
      return hive3(expr);
    }
  }

  /** What Hive 3's serializeExpressionToKryo writes. Its Kryo cannot be made on Java 9+ (its ArrayList.subList
   * serializer reads a field Java 8 had), so this one registers the same classes in the same order, with
   * Hive's own serializers, the sublist class with another one: the class ids, all that an expression shows of
   * the registrations, are the same. */
  static byte[] hive3(ExprNodeDesc expr) throws Exception {
    Kryo kryo = new Kryo();
    kryo.register(java.sql.Date.class, hiveSerializer("SqlDateSerializer"));
    kryo.register(java.sql.Timestamp.class, hiveSerializer("TimestampSerializer"));
    kryo.register(TimestampTZ.class, hiveSerializer("TimestampTZSerializer"));
    kryo.register(org.apache.hadoop.fs.Path.class, hiveSerializer("PathSerializer"));
    Serializer<?> asList = hiveSerializer("ArraysAsListSerializer");
    kryo.register(Arrays.asList("").getClass(), asList);
    kryo.register(new ArrayList<>().subList(0, 0).getClass(), asList);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Output output = new Output(bytes);
    kryo.writeObject(output, expr);
    output.close();
    return bytes.toByteArray();
  }

  static Serializer<?> hiveSerializer(String name) throws Exception {
    java.lang.reflect.Constructor<?> constructor =
        Class.forName(SerializationUtilities.class.getName() + "$" + name).getDeclaredConstructors()[0];
    constructor.setAccessible(true);
    return (Serializer<?>) constructor.newInstance(new Object[constructor.getParameterCount()]);
  }

  HiveExpressions(String text) {
    for (int i = 0; i < text.length(); ) {
      char c = text.charAt(i);
      if (c == ' ') { i++; }
      else if (c == '(' || c == ')') { tokens.add(String.valueOf(c)); i++; }
      else if (c == '"') {
        StringBuilder sb = new StringBuilder("\"");
        for (i++; text.charAt(i) != '"'; i++) {
          if (text.charAt(i) == '\\') { i++; }
          sb.append(text.charAt(i));
        }
        tokens.add(sb.toString()); i++;
      } else {
        int end = i;
        while (end < text.length() && " ()".indexOf(text.charAt(end)) < 0) end++;
        tokens.add(text.substring(i, end)); i = end;
      }
    }
  }

  ExprNodeDesc node() throws Exception {
    expect("(");
    String head = tokens.get(at++);
    ExprNodeDesc result;
    if (head.equals("col")) {
      String name = tokens.get(at++);
      result = new ExprNodeColumnDesc(TypeInfoUtils.getTypeInfoFromTypeString(tokens.get(at++).replace("[", "(").replace("]", ")")), name, "t", true);
    } else if (head.equals("const")) {
      TypeInfo type = TypeInfoUtils.getTypeInfoFromTypeString(tokens.get(at++).replace("[", "(").replace("]", ")"));
      result = new ExprNodeConstantDesc(type, value(type, tokens.get(at++)));
    } else {
      ArrayList<ExprNodeDesc> children = new ArrayList<>();
      while (!tokens.get(at).equals(")")) children.add(node());
      GenericUDF udf = FunctionRegistry.getFunctionInfo(head).getGenericUDF();
      result = ExprNodeGenericFuncDesc.newInstance(udf, head, children);
    }
    expect(")");
    return result;
  }

  private void expect(String token) {
    if (!tokens.get(at++).equals(token)) throw new IllegalArgumentException("expected " + token + " at " + (at - 1));
  }

  static Object value(TypeInfo type, String token) {
    if (token.equals("null")) return null;
    String text = token.substring(1);
    switch (type.getTypeName().replaceAll("\\(.*", "")) {
      case "string": return text;
      case "varchar": return new HiveVarchar(text, ((VarcharTypeInfo) type).getLength());
      case "char": return new HiveChar(text, ((CharTypeInfo) type).getLength());
      case "int": return Integer.valueOf(text);
      case "bigint": return Long.valueOf(text);
      case "smallint": return Short.valueOf(text);
      case "tinyint": return Byte.valueOf(text);
      case "double": return Double.valueOf(text);
      case "float": return Float.valueOf(text);
      case "boolean": return Boolean.valueOf(text);
      case "decimal": return HiveDecimal.create(text);
      case "date": return org.apache.hadoop.hive.common.type.Date.valueOf(text);
      case "timestamp": return org.apache.hadoop.hive.common.type.Timestamp.valueOf(text);
      default: throw new IllegalArgumentException("no constants of type " + type);
    }
  }
}
