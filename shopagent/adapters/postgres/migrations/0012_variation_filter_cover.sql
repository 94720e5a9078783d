-- The colour and size filters' index also holds what the search reads of each variation found
-- (its product and stock), so a filter such as "red, M, in stock" is answered from the index
-- alone: at a million products (~10,000 matches) the variations' lookup took 48 ms reading
-- ~8,000 heap pages, and 1 ms from this index (bench/README.md, bench/scale.py).
CREATE INDEX product_variation_color_size_cover ON product_variation (color, size) INCLUDE (product_id, quantity, reserved);
DROP INDEX product_variation_color_size;
