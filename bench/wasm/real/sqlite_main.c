/* bench/wasm/real/sqlite_main.c: the SQLite workload, linked with the amalgamation that run.sh
 * builds from Debian's sqlite3 source: in an in-memory database, inserts ROWS generated rows in
 * one transaction, indexes them, then runs aggregate, indexed-range, join, update, delete and
 * string queries, printing every result row (floating point only through SQL's printf, which is
 * SQLite's own code on every build). */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef ROWS
#define ROWS 100000
#endif

static sqlite3 *db;

static void fail(const char *what)
{
    printf("sqlite: %s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
}

static int print_row(void *arg, int n, char **values, char **names)
{
    (void)arg, (void)names;
    for (int i = 0; i < n; i++)
        printf("%s%s", i ? "|" : "", values[i] ? values[i] : "NULL");
    printf("\n");
    return 0;
}

static void exec(const char *sql)
{
    char *err = 0;
    if (sqlite3_exec(db, sql, print_row, 0, &err) != SQLITE_OK) {
        printf("sqlite: %s: %s\n", sql, err);
        exit(1);
    }
}

static void insert_rows(void)
{
    static const char *const syllables[] = {"ka", "lo", "mi", "ne", "su", "ta", "ri", "vo"};
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "INSERT INTO t(k, name, v) VALUES (?, ?, ?)", -1, &st, 0))
        fail("prepare insert");
    uint32_t s = 7;
    for (int i = 0; i < ROWS; i++) {
        char name[16];
        s = s * 1103515245u + 12345u;
        uint32_t r = s >> 8;
        snprintf(name, sizeof(name), "%s%s%s%d", syllables[r & 7], syllables[(r >> 3) & 7],
                 syllables[(r >> 6) & 7], (int)(r >> 9) % 1000);
        sqlite3_bind_int(st, 1, (int)(r % 50000));
        sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_double(st, 3, (double)(r % 100000) / 8.0);
        if (sqlite3_step(st) != SQLITE_DONE)
            fail("insert");
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
}

static void range_queries(void)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(
            db, "SELECT count(*), coalesce(sum(id), 0) FROM t WHERE k BETWEEN ? AND ?", -1, &st, 0))
        fail("prepare range");
    long long count = 0, sum = 0;
    for (int i = 0; i < 5000; i++) {
        sqlite3_bind_int(st, 1, i * 9);
        sqlite3_bind_int(st, 2, i * 9 + 40);
        if (sqlite3_step(st) != SQLITE_ROW)
            fail("range");
        count += sqlite3_column_int64(st, 0);
        sum += sqlite3_column_int64(st, 1);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    printf("range %lld %lld\n", count, sum);
}

int main(void)
{
    if (sqlite3_open(":memory:", &db) != SQLITE_OK)
        fail("open");
    exec("CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, name TEXT, v REAL)");
    exec("BEGIN");
    insert_rows();
    exec("COMMIT");
    exec("CREATE INDEX t_k ON t(k)");
    exec("CREATE INDEX t_name ON t(name)");
    exec("SELECT count(*), sum(k), printf('%.3f', total(v)) FROM t");
    exec("SELECT k % 97 AS m, count(*), printf('%.2f', avg(v)) FROM t GROUP BY m "
         "ORDER BY 2 DESC, 1 LIMIT 5");
    range_queries();
    exec("SELECT count(*), sum(a.k) FROM t a JOIN t b ON b.id = a.k WHERE b.v > 6000");
    exec("UPDATE t SET v = v * 1.5, name = upper(name) WHERE k % 3 = 0");
    exec("DELETE FROM t WHERE k % 7 = 1");
    exec("SELECT count(*), printf('%.3f', total(v)), max(length(name || name)) FROM t");
    exec("SELECT name, count(*) FROM t WHERE name LIKE 'KA%' GROUP BY name ORDER BY 2 DESC, 1 "
         "LIMIT 3");
    exec("SELECT substr(group_concat(name, ','), 1, 60) FROM (SELECT name FROM t ORDER BY name "
         "LIMIT 20)");
    sqlite3_close(db);
    return 0;
}
