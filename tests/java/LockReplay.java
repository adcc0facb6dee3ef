import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.hadoop.hive.conf.HiveConf;
import org.apache.hadoop.hive.metastore.HiveMetaHookLoader;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.IMetaStoreClient;
import org.apache.hadoop.hive.metastore.LockRequestBuilder;
import org.apache.hadoop.hive.metastore.RetryingMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.LockComponent;
import org.apache.hadoop.hive.metastore.api.LockLevel;
import org.apache.hadoop.hive.metastore.api.LockRequest;
import org.apache.hadoop.hive.metastore.api.LockResponse;
import org.apache.hadoop.hive.metastore.api.LockState;
import org.apache.hadoop.hive.metastore.api.LockType;
import org.apache.hadoop.hive.metastore.api.ShowLocksRequest;
import org.apache.hadoop.hive.metastore.api.ShowLocksResponseElement;
import org.apache.hadoop.hive.ql.metadata.Hive;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.thrift.TException;

/**
 * Takes a table lock in a Hive Metastore the way two table formats do, with Hive 2.3's own metastore client,
 * making the same metastore calls in the same order (the timings are parameters).
 *
 * <p>Sources replayed: hudi-sync/hudi-hive-sync .../transaction/lock/HiveMetastoreBasedLockProvider.java and
 * Heartbeat.java, hudi-client-common .../transaction/lock/LockManager.java (Hudi 1.x: the heartbeat came with
 * 1.0); iceberg hive-metastore .../hive/MetastoreLock.java and HiveClientPool.java, core .../util/Tasks.java.
 *
 * <pre>
 *   hudi    URI DB TABLE [waitTime=60000] [retryWait=5000] [retries=50] [heartbeat=60000]
 *   iceberg URI DB TABLE [heartbeat=240000] [acquireTimeout=180000] [checkMin=50] [checkMax=5000]
 *                        [creationTimeout=180000] [creationMin=50] [creationMax=5000]
 *   probe   URI
 * </pre>
 *
 * <p>{@code hudi}: Apache Hudi 1.x, {@code HiveMetastoreBasedLockProvider} driven by {@code LockManager}. The
 * client comes from {@code Hive.getWithoutRegisterFns(conf).getMSC()}. One attempt: {@code lock} (run on an
 * executor, given up after {@code waitTime}) of one EXCLUSIVE TABLE component built with
 * {@code LockRequestBuilder}, user {@code user.name}, the local host name and agentInfo "Unknown" (the
 * struct's default); a WAITING answer is unlocked at once and the attempt fails. The lock manager makes up
 * to {@code retries} more attempts, {@code retryWait} ms apart. Once ACQUIRED, {@code heartbeat(0, id)} every
 * {@code heartbeat} ms (first after half of it); release: stop heartbeating, {@code unlock}, close.
 *
 * <p>{@code iceberg}: Apache Iceberg's {@code MetastoreLock}. The client is
 * {@code RetryingMetaStoreClient.getProxy(conf, hooks, HiveMetaStoreClient)}; agentInfo "Iceberg-&lt;uuid&gt;".
 * {@code lock} of one EXCLUSIVE TABLE component (user: the Hadoop short user name; host: the local host name);
 * when that call fails, {@code show_locks} of the table looks for a lock of this agentInfo, and the creation
 * is retried with exponential backoff (factor 2, {@code creationMin}..{@code creationMax} ms, for
 * {@code creationTimeout} ms) while none is found. While WAITING, {@code check_lock} at once, then with
 * exponential backoff (factor 1.5, {@code checkMin}..{@code checkMax} ms, 10% jitter) until
 * {@code acquireTimeout} ms have passed; a lock that ends other than ACQUIRED (timeout, error, another
 * state) is unlocked. Once ACQUIRED, {@code heartbeat(0, id)} every {@code heartbeat} ms (first after half of
 * it); release: stop heartbeating, {@code unlock}.
 *
 * <p>A writer connects, prints {@code READY agentInfo user host} (as its lock request has them), waits for the
 * line {@code acquire} on stdin, takes the lock, then holds it until the line {@code release} or the end of
 * stdin, releases it and exits (0; 1 when it could not take the lock). One line on stdout per event:
 * {@code LOCK id STATE} (answer of lock), {@code LOCK_FAILED class message}, {@code FOUND id STATE} (found by
 * show_locks), {@code CHECK id STATE}, {@code UNLOCK id} (a lock given up without being acquired),
 * {@code ATTEMPT_ERROR class message} (a Hudi attempt that failed), {@code ACQUIRED id}, {@code HEARTBEAT id},
 * {@code HEARTBEAT_FAILED id class message} (heartbeating stops, as in both projects), {@code RELEASED id},
 * {@code UNLOCK_FAILED id class message}, {@code ERROR class message} (could not take the lock).
 *
 * <p>{@code probe} connects a plain HiveMetaStoreClient, prints {@code READY}, then runs one call per line of
 * stdin, {@code check ID} (check_lock), {@code heartbeat ID} (heartbeat(0, ID)) or {@code unlock ID}, printing
 * {@code CHECK id STATE}, {@code HEARTBEAT id}, {@code UNLOCK id}, or {@code <OP>_FAILED id class message}.
 */
public final class LockReplay {
    private LockReplay() {}

    private static final BufferedReader STDIN =
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));

    public static void main(String[] args) throws Exception {
        int code;
        switch (args[0]) {
            case "hudi":
                code = hudi(args[1], args[2], args[3], options(args, 4));
                break;
            case "iceberg":
                code = iceberg(args[1], args[2], args[3], options(args, 4));
                break;
            case "probe":
                code = probe(args[1]);
                break;
            default:
                throw new IllegalArgumentException("unknown command " + args[0]);
        }
        System.out.flush();
        System.exit(code); // heartbeat and client threads must not keep the JVM alive
    }

    // ------------------------------------------------------------------ Hudi

    private static int hudi(String uri, String db, String table, Map<String, Long> opts) throws Exception {
        long waitTime = opt(opts, "waitTime", 60_000);
        long retryWait = opt(opts, "retryWait", 5_000);
        long retries = opt(opts, "retries", 50);
        long heartbeatMs = opt(opts, "heartbeat", 60_000);

        // the provider's HiveConf: the metastore URI plus lock-manager settings the metastore calls do not use
        HiveConf conf = new HiveConf();
        conf.setVar(HiveConf.ConfVars.METASTOREURIS, uri);
        conf.set("hive.support.concurrency", "true");
        IMetaStoreClient client = Hive.getWithoutRegisterFns(conf).getMSC();
        ScheduledExecutorService executor = Executors.newScheduledThreadPool(2);
        say("READY", "Unknown", System.getProperty("user.name"), InetAddress.getLocalHost().getHostName());
        if (!awaitLine("acquire")) {
            return 0;
        }

        LockResponse held = null;
        for (long attempt = 0; attempt <= retries && held == null; attempt++) {
            if (attempt > 0) {
                Thread.sleep(retryWait);
            }
            try {
                LockComponent component = new LockComponent(LockType.EXCLUSIVE, LockLevel.TABLE, db);
                component.setTablename(table);
                LockRequest request = new LockRequestBuilder().addLockComponent(component)
                        .setUser(System.getProperty("user.name")).build();
                request.setUserIsSet(true);
                LockResponse answer = executor.submit(() -> call(client, c -> c.lock(request)))
                        .get(waitTime, TimeUnit.MILLISECONDS);
                say("LOCK", answer.getLockid(), answer.getState());
                if (answer.getState() == LockState.ACQUIRED) {
                    held = answer;
                } else { // a WAITING lock is given up at once; the lock manager tries again later
                    unlock(client, answer.getLockid());
                    say("UNLOCK", answer.getLockid());
                }
            } catch (ExecutionException e) {
                say("ATTEMPT_ERROR", name(e.getCause()), message(e.getCause()));
            } catch (TimeoutException | TException e) {
                say("ATTEMPT_ERROR", name(e), message(e));
            }
        }
        if (held == null) {
            say("ERROR", "HoodieLockException", "Unable to acquire the lock");
            executor.shutdownNow();
            return 1;
        }

        long id = held.getLockid();
        ScheduledFuture<?> heartbeat = executor.scheduleAtFixedRate(() -> beat(client, id), heartbeatMs / 2,
                heartbeatMs, TimeUnit.MILLISECONDS);
        say("ACQUIRED", id);
        awaitLine("release");

        heartbeat.cancel(false);
        int code = 0;
        try {
            unlock(client, id);
            say("RELEASED", id);
        } catch (TException e) { // Hudi's unlock() throws a HoodieLockException
            say("UNLOCK_FAILED", id, name(e), message(e));
            code = 1;
        }
        synchronized (client) {
            Hive.closeCurrent(); // the lock manager closes the provider after unlocking
        }
        executor.shutdown();
        return code;
    }

    // ------------------------------------------------------------------ Iceberg

    private static int iceberg(String uri, String db, String table, Map<String, Long> opts) throws Exception {
        long heartbeatMs = opt(opts, "heartbeat", 4 * 60_000);
        long acquireTimeout = opt(opts, "acquireTimeout", 3 * 60_000);
        long checkMin = opt(opts, "checkMin", 50);
        long checkMax = opt(opts, "checkMax", 5_000);
        long creationTimeout = opt(opts, "creationTimeout", 3 * 60_000);
        long creationMin = opt(opts, "creationMin", 50);
        long creationMax = opt(opts, "creationMax", 5_000);

        HiveConf conf = new HiveConf();
        conf.setVar(HiveConf.ConfVars.METASTOREURIS, uri);
        IMetaStoreClient client = RetryingMetaStoreClient.getProxy(conf, (HiveMetaHookLoader) t -> null,
                HiveMetaStoreClient.class.getName());
        String agentInfo = "Iceberg-" + UUID.randomUUID();
        String user = UserGroupInformation.getCurrentUser().getShortUserName();
        String host = InetAddress.getLocalHost().getHostName();
        say("READY", agentInfo, user, host);
        if (!awaitLine("acquire")) {
            return 0;
        }

        LockComponent component = new LockComponent(LockType.EXCLUSIVE, LockLevel.TABLE, db);
        component.setTablename(table);
        List<LockComponent> components = new ArrayList<>();
        components.add(component);
        LockRequest request = new LockRequest(components, user, host);
        request.setAgentInfo(agentInfo);

        // create the lock; when the call fails, the lock may exist all the same: look for it by agentInfo
        long id = -1;
        LockState state = null;
        Backoff creation = new Backoff(creationMin, creationMax, creationTimeout, 2.0);
        while (state == null) {
            try {
                LockResponse answer = call(client, c -> c.lock(request));
                id = answer.getLockid();
                state = answer.getState();
                say("LOCK", id, state);
            } catch (TException e) {
                say("LOCK_FAILED", name(e), message(e));
                ShowLocksResponseElement found;
                try {
                    found = findLock(client, db, table, agentInfo);
                } catch (TException showFailed) {
                    say("ERROR", "LockException", "Failed to find lock: " + message(showFailed));
                    return 1;
                }
                if (found != null) {
                    id = found.getLockid();
                    state = found.getState();
                    say("FOUND", id, state);
                } else if (!creation.pause()) {
                    say("ERROR", "LockException", "Failed to find lock for table " + db + "." + table);
                    return 1;
                }
            }
        }

        // wait for it
        final long lockId = id;
        String failure = null;
        Backoff waiting = new Backoff(checkMin, checkMax, acquireTimeout, 1.5);
        try {
            while (state == LockState.WAITING) {
                LockResponse answer = call(client, c -> c.checkLock(lockId));
                state = answer.getState();
                say("CHECK", id, state);
                if (state == LockState.WAITING && !waiting.pause()) {
                    failure = "Timed out after " + waiting.elapsed() + " ms waiting for lock on " + db + "." + table;
                    break;
                }
            }
        } catch (TException e) {
            failure = "Metastore operation failed: " + name(e) + " " + message(e);
        } finally {
            if (state != LockState.ACQUIRED) {
                unlockQuietly(client, lockId);
            }
        }
        if (state != LockState.ACQUIRED) {
            say("ERROR", "LockException", failure != null ? failure : "lock request ended in state " + state);
            return 1;
        }

        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "iceberg-hive-lock-heartbeat");
            thread.setDaemon(true);
            return thread;
        });
        ScheduledFuture<?> heartbeat = executor.scheduleAtFixedRate(() -> beat(client, lockId), heartbeatMs / 2,
                heartbeatMs, TimeUnit.MILLISECONDS);
        say("ACQUIRED", lockId);
        awaitLine("release");

        heartbeat.cancel(false);
        executor.shutdown();
        boolean released = unlockQuietly(client, lockId); // Iceberg logs a failed unlock and goes on
        if (released) {
            say("RELEASED", lockId);
        }
        call(client, c -> {
            c.close();
            return null;
        });
        return released ? 0 : 1;
    }

    private static ShowLocksResponseElement findLock(IMetaStoreClient client, String db, String table,
                                                     String agentInfo) throws TException {
        ShowLocksRequest request = new ShowLocksRequest();
        request.setDbname(db);
        request.setTablename(table);
        for (ShowLocksResponseElement lock : call(client, c -> c.showLocks(request)).getLocks()) {
            if (agentInfo.equals(lock.getAgentInfo())) {
                return lock;
            }
        }
        return null;
    }

    private static boolean unlockQuietly(IMetaStoreClient client, long id) {
        try {
            unlock(client, id);
            return true;
        } catch (TException e) {
            say("UNLOCK_FAILED", id, name(e), message(e));
            return false;
        }
    }

    /** Iceberg's exponential backoff: min * factor^(attempt-1), at most max, plus up to 10% jitter. */
    private static final class Backoff {
        private final long min;
        private final long max;
        private final long timeout;
        private final double factor;
        private final long start = System.currentTimeMillis();
        private int attempt = 0;

        Backoff(long min, long max, long timeout, double factor) {
            this.min = min;
            this.max = max;
            this.timeout = timeout;
            this.factor = factor;
        }

        long elapsed() {
            return System.currentTimeMillis() - start;
        }

        /** After a failed attempt: false when no attempt is left, else sleeps until the next one. */
        boolean pause() throws InterruptedException {
            attempt++;
            if (elapsed() > timeout && attempt > 1) {
                return false;
            }
            int delay = (int) Math.min(min * Math.pow(factor, attempt - 1), (double) max);
            Thread.sleep(delay + ThreadLocalRandom.current().nextInt(Math.max(1, (int) (delay * 0.1))));
            return true;
        }
    }

    // ------------------------------------------------------------------ probe

    private static int probe(String uri) throws Exception {
        HiveConf conf = new HiveConf();
        conf.setVar(HiveConf.ConfVars.METASTOREURIS, uri);
        IMetaStoreClient client = new HiveMetaStoreClient(conf);
        say("READY");
        for (String line; (line = STDIN.readLine()) != null; ) {
            String[] words = line.trim().split("\\s+");
            if (words.length != 2) {
                continue;
            }
            String op = words[0];
            long id = Long.parseLong(words[1]);
            try {
                switch (op) {
                    case "check":
                        say("CHECK", id, client.checkLock(id).getState());
                        break;
                    case "heartbeat":
                        client.heartbeat(0, id);
                        say("HEARTBEAT", id);
                        break;
                    case "unlock":
                        client.unlock(id);
                        say("UNLOCK", id);
                        break;
                    default:
                        throw new IllegalArgumentException("unknown probe " + op);
                }
            } catch (TException e) {
                say(op.toUpperCase() + "_FAILED", id, name(e), message(e));
            }
        }
        client.close();
        return 0;
    }

    // ------------------------------------------------------------------ shared

    private interface Call<T> {
        T run(IMetaStoreClient client) throws TException;
    }

    /**
     * One metastore call at a time on a writer's client (its heartbeat thread shares it): calls on one Thrift
     * connection must not interleave. Iceberg's client pool hands a client to one caller at a time; Hudi's
     * provider does not guard it, which only matters when a heartbeat and the unlock coincide.
     */
    private static <T> T call(IMetaStoreClient client, Call<T> call) throws TException {
        synchronized (client) {
            return call.run(client);
        }
    }

    private static void unlock(IMetaStoreClient client, long id) throws TException {
        call(client, c -> {
            c.unlock(id);
            return null;
        });
    }

    private static void beat(IMetaStoreClient client, long id) {
        try {
            call(client, c -> {
                c.heartbeat(0, id);
                return null;
            });
            say("HEARTBEAT", id);
        } catch (TException | RuntimeException e) {
            say("HEARTBEAT_FAILED", id, name(e), message(e));
            throw new IllegalStateException(e); // ends the schedule, as the projects' heartbeat tasks do
        }
    }

    /** True on the expected line; false at the end of stdin (any other line is ignored). */
    private static boolean awaitLine(String expected) throws Exception {
        for (String line; (line = STDIN.readLine()) != null; ) {
            if (line.trim().equals(expected)) {
                return true;
            }
        }
        return false;
    }

    private static Map<String, Long> options(String[] args, int from) {
        Map<String, Long> options = new HashMap<>();
        for (int i = from; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            options.put(kv[0], Long.parseLong(kv[1]));
        }
        return options;
    }

    private static long opt(Map<String, Long> options, String key, long fallback) {
        return options.getOrDefault(key, fallback);
    }

    private static String name(Throwable e) {
        return e.getClass().getSimpleName();
    }

    private static String message(Throwable e) {
        return String.valueOf(e.getMessage()).replaceAll("\\s+", " ").trim();
    }

    private static void say(Object... fields) {
        StringBuilder line = new StringBuilder();
        for (Object field : fields) {
            if (line.length() > 0) {
                line.append(' ');
            }
            line.append(field);
        }
        synchronized (System.out) {
            System.out.println(line);
            System.out.flush();
        }
    }
}
