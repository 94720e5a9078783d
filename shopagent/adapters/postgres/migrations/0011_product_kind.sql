-- The word each indexed product's name calls its kind of thing by (`query_words.name_kind`: the
-- last word before what it comes with or is for, an amount aside: "Knife" of "Classic Chef's
-- Knife 20 cm"), written by the indexer with the product's words, so that the catalog's kind
-- words are one DISTINCT away instead of a pass over every name. Products indexed before are
-- given it here, the same way in SQL.
ALTER TABLE product_index ADD COLUMN kind text;

UPDATE product_index i
SET kind = substring(
    regexp_replace(
        ' ' || btrim(regexp_replace(p.name, '(\s[\u2014\u2013-]\s|[,(/|]|\s(for|with|f\u00fcr|mit|pour|avec)\s).*$', '', 'i')),
        '(\s+(\S*[0-9]\S*|mm|cm|m|l|ml|cl|g|kg|inch|in|oz|lb|lbs|pack))+$', '', 'i'
    ) FROM '(\S+)\s*$')
FROM product p
WHERE p.id = i.product_id;
