-- An upstream change: the price column of invoice lines is renamed to say its currency.
-- replaygate check --migration migrations/rename-unit-price.sql applies this to a temporary
-- copy of warehouse/chinook.duckdb and runs the schema checks on the copy.
ALTER TABLE InvoiceLine RENAME COLUMN UnitPrice TO UnitPriceUsd;
