-- An upstream change: the price column of invoice lines is renamed to say its currency.
-- replaygate check --migration migrations/rename-unit-price.sql applies this inside a PostgreSQL
-- transaction that is always rolled back, and runs the schema checks in it.
ALTER TABLE InvoiceLine RENAME COLUMN UnitPrice TO UnitPriceUsd;
