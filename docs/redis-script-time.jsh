// Redis's own time per claim + complete, by script variant (docs/where-the-time-goes.md, Redis).
// Run from the repository root, with nothing else on the machine:
//   redis-server --port 6399 --bind 127.0.0.1 --save "" --appendonly no --daemonize yes
//   mkdir -p v2a && for f in claim complete prelude; do
//     git show 6d53f76:store-redis/src/main/resources/org/fencekit/store/redis/$f.lua > v2a/$f.lua; done
//   jshell --class-path admin/target/fencekit-admin.jar docs/redis-script-time.jsh
// Variants: the first release's scripts (layout 1, kept as test resources), layout 2 as first
// landed (6d53f76: HMGET to decide, HGETALL to answer) and the scripts of this checkout.
import redis.clients.jedis.*;
import java.nio.file.*;
import java.util.*;
var raw = new Jedis("127.0.0.1", 6399);
String load(String dir, String name, boolean prelude) throws Exception { String s = Files.readString(Path.of(dir + name + ".lua")); if (!prelude) return raw.scriptLoad(s); String p = Files.readString(Path.of(dir + "prelude.lua")); int i = s.indexOf('\n') + 1; return raw.scriptLoad(s.substring(0, i) + p + s.substring(i)); }
String V1 = "./store-redis/src/test/resources/org/fencekit/store/redis/layout1/", A = "./v2a/", B = "./store-redis/src/main/resources/org/fencekit/store/redis/";
String[] claim = { load(V1, "claim", false), load(A, "claim", true), load(B, "claim", true) };
String[] complete = { load(V1, "complete", false), load(A, "complete", true), load(B, "complete", true) };
String[] names = { "layout 1 (first release)", "layout 2, HMGET + HGETALL", "layout 2, one HGETALL (main)" };
long stat() { String s = raw.info("commandstats"); for (String l : s.split("\r\n")) if (l.startsWith("cmdstat_evalsha:")) return Long.parseLong(l.replaceAll(".*usec=([0-9]+),.*", "$1")); return 0; }
List<List<Double>> c = new ArrayList<>(), d = new ArrayList<>();
for (int v = 0; v < 3; v++) { c.add(new ArrayList<>()); d.add(new ArrayList<>()); }
void phase(int v, int r, int n) {
  raw.configResetStat();
  for (int i = 0; i < n; i++) {
    String sid = "cs_" + v + "_" + r + "_" + i; String key = "bench:{" + sid + "}";
    List<String> ck = v == 0 ? List.of(key) : List.of(key, "bench:index:claims", "bench:index:failed");
    List<String> ca = new ArrayList<>(List.of("1000", "2000", "n" + i, sid, "esim-eu-5gb", "1", "ada@example.com", "1500", "eur")); if (v > 0) ca.add(sid);
    raw.evalsha(claim[v], ck, ca);
  }
  long cu = stat(); raw.configResetStat();
  for (int i = 0; i < n; i++) {
    String sid = "cs_" + v + "_" + r + "_" + i; String key = "bench:{" + sid + "}";
    List<String> kk = v == 0 ? List.of(key, key + ":orphans", key + ":orphan-ids") : List.of(key, key + ":orphans", key + ":orphan-ids", "bench:index:claims", "bench:index:orphans");
    List<String> a = new ArrayList<>(List.of("1", "n" + i, "3000", "esim-" + i, "0", "")); if (v > 0) a.add(sid);
    raw.evalsha(complete[v], kk, a);
  }
  long du = stat();
  c.get(v).add(cu / (double) n); d.get(v).add(du / (double) n);
}
int R = 6;
for (int r = 0; r < R; r++) { for (int v : (r % 2 == 0 ? new int[] {0, 1, 2} : new int[] {2, 1, 0})) phase(v, r, 20000); raw.flushAll(); }
for (int v = 0; v < 3; v++) {
  List<Double> x = c.get(v), y = d.get(v);
  double[] s = new double[R]; for (int i = 0; i < R; i++) s[i] = x.get(i) + y.get(i);
  double[] sorted = s.clone(); Arrays.sort(sorted);
  System.out.printf("%-30s claim+complete us per op, %d rounds: median %.1f, min %.1f, max %.1f  (rounds: %s)%n", names[v], R, (sorted[R/2-1]+sorted[R/2])/2, sorted[0], sorted[R-1], Arrays.toString(Arrays.stream(s).map(z -> Math.round(z*10)/10.0).toArray()));
}
/exit
