#!/usr/bin/env bash
# What `benchmarks/hmsbench.py --peer/--compare` needs beyond the test extra (pyspark's jars, a JDK and the
# MariaDB/MySQL server the tests use): the MariaDB JDBC driver (Connector/J) for the Apache Hive Metastore
# peer, which the pyspark wheel does not ship, and matplotlib for --plot.
#
# The driver comes from the distribution's libmariadb-java package (/usr/share/java/mariadb-java-client.jar),
# or else from Maven Central into ~/.m2 (benchmarks/peer.py looks in both; HMS_PEER_JDBC_JAR overrides).
set -euo pipefail

JAR=/usr/share/java/mariadb-java-client.jar
MAVEN_ARTIFACT=org.mariadb.jdbc:mariadb-java-client:2.7.12

sudo_if_needed() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

if [ -f "$JAR" ] || ls ~/.m2/repository/org/mariadb/jdbc/mariadb-java-client/*/mariadb-java-client-*.jar \
    >/dev/null 2>&1; then
  echo "MariaDB JDBC driver: already installed"
elif command -v apt-get >/dev/null 2>&1; then
  sudo_if_needed apt-get install -y -qq --no-install-recommends libmariadb-java \
    || { sudo_if_needed apt-get update -qq && \
         sudo_if_needed apt-get install -y -qq --no-install-recommends libmariadb-java; }
elif command -v mvn >/dev/null 2>&1; then
  mvn -q dependency:get -Dartifact="$MAVEN_ARTIFACT"
else
  echo "install_peer_deps.sh: neither apt-get nor mvn; put a mariadb-java-client jar somewhere and set" \
       "HMS_PEER_JDBC_JAR to it" >&2
  exit 1
fi

python -m pip install --quiet 'matplotlib>=3.5'
