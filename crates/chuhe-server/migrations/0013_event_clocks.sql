-- The table's clocks after an event, on the last event of each table's write in a group of
-- moves on SQLite (JSON, as `game_tables.clocks`; NULL on the other events, on untimed tables,
-- on PostgreSQL, whose rows are always written, and on events stored before this column). On SQLite a group of moves leaves the rows of tables whose phase stays as they
-- were: the last event then holds the table's version, clocks and time (`created_ms`), and the
-- store reads whichever of the row and the last event is newer (docs/performance.md, "Rows
-- written when their phase changes").
ALTER TABLE table_events ADD COLUMN clocks TEXT;
