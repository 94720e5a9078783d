"""What the concierge says, in English, German and French (the store language picks one).

Product names and prices are never in these templates: they are filled in from tool
results, exactly as the tools returned them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Replies:
    greet: str
    thanks: str
    bye: str
    identity: str
    off_topic: str
    unclear: str
    noted: str
    found: str
    found_cheaper: str
    found_cheaper_than_it: str
    found_cheaper_than_dearest: str
    none_cheaper_than_it: str
    found_pricier: str
    found_more: str
    found_similar: str
    browse: str
    corrected: str
    was: str
    colours: str
    sizes: str
    sold_out_in: str
    sold_out: str
    all_sold_out: str
    these_sold_out: str  # the matches listed, when close ones listed after them are available
    footer: str
    other_variations: str
    none_cheaper: str
    none_pricier: str
    cheapest_shown: str  # after none_cheaper: which of the shown ones costs least
    none_more: str
    none_filtered: str
    in_other_colours: str
    in_other_sizes: str
    size_missing: str
    found_each: str
    each: str
    each_close: str
    each_none: str
    in_other_variations: str
    relax: str
    another_size: str
    another_colour: str
    wider_price: str
    over_budget: str
    sold_out_too: str
    not_carried: str
    rephrase: str
    by: str
    material: str
    available: str
    item: str
    more_items: str
    detail_sold_out: str
    which: str
    no_list: str
    out_of_range: str
    only_one: str
    compare_head: str
    rating: str
    cheaper_one: str
    better_rated: str
    error: str
    in_size: str
    in_colour: str
    colours_unlisted: str
    under: str
    over: str
    between: str
    in_stock: str
    alternative: str  # "or" between colours or sizes
    close: str
    also_close: str
    quoted: str
    not_told: str
    not_told_but: str
    not_told_rest: str
    unit_not_told: str
    quote: str
    only_one_says: str
    only_one_shown: str  # before an answer about the one product shown, asked of as "the second one"
    from_list_before: str  # before an answer about "the second one" of the list before the one of one product
    yes: str
    no: str
    weighs: str
    lightest: str
    biggest: str
    smallest: str
    corded: str
    cheapest: str
    costs_more: str  # the price difference of two products
    cost_together: str  # what two or more products cost together
    not_in_colours: str  # said back after the request: "not in grey"
    or_word: str  # between colours not wanted: " or "
    no_such_one: str  # "the logitech one" where no product shown nor of the shop is called so
    no_such_thing: str  # "the hosta, how tall does it get?" where no product shown nor of the shop is one
    told_elsewhere: str  # "the rosemary you showed, …?" where none shown is called so, but a product's text tells of it
    no_such_colour: str  # "the grey one" where no product shown comes in grey
    in_colour_unshown: str  # … and the shop's one of that kind that does, answered of
    cheapest_first: str  # said after the request: "jacket, cheapest first"
    dearest_first: str
    ip_no: str  # "is it waterproof?" of a product rated IP20
    ip_splash: str  # ... IPX4 to IP66
    ip_yes: str  # ... IPX7, IP68
    pick: str  # "which one would you pick?": the best fit of those shown
    pick_cheaper: str  # ... and a cheaper one of them
    dearest: str
    costs: str
    on_sale: str
    on_sale_some: str
    not_discounted: str
    stock_yes: str
    more_variations: str
    stock_no: str
    not_made_in: str
    store_from: str
    store_topic: str  # a passage on the topic asked, not surely an answer to it
    store_link: str
    store_unknown: str
    store_contact: str
    broad: str
    found_plain: str
    cheaper_plain: str
    pricier_plain: str
    more_plain: str
    comes_in: str
    comes_only_in: str
    no_colours: str  # a colour asked of a product made in no colours
    sized_line: str
    size_left: str
    size_sold_out: str
    one_size: str
    from_price: str
    spec_list: str
    spec: str
    # A yes-or-no spec: of a property ("tubeless_ready": "not tubeless ready"), else of a thing it has or
    # comes with ("whistle": "whistle: yes"); in English, "X included" is "X not included" when it is not.
    spec_is: str
    spec_is_not: str
    spec_has: str
    spec_has_not: str
    spec_not_last: str
    costs_each: str
    buy_here: str
    see_here: str
    no_link: str
    empty_catalog: str
    said_of: str


ENGLISH = Replies(
    greet="Hello! I'm the {store} shopping assistant. What are you looking for today?",
    thanks="You're welcome! Is there anything else I can help you find?",
    bye="Thank you for visiting {store}. Goodbye!",
    identity="I'm the {store} shopping assistant: I search the catalog for you. Tell me what you need, "
    "with a size, colour or budget if you like.",
    off_topic="I can only help with shopping at {store}. What are you looking for?",
    unclear="What are you looking for? Tell me in a few words, with a size, colour or budget if you like.",
    noted="Shall I tell you more, or look for something else?",
    found="Here is what I found for {subject}{filters}:",
    found_cheaper="Cheaper options for {subject}{filters}:",
    found_cheaper_than_it="Cheaper than that one, for {subject}{filters}:",
    found_cheaper_than_dearest="Nothing is cheaper than all of those; these cost less than the dearest of them:",
    none_cheaper_than_it="I found no {subject}{filters} cheaper than that one.",
    found_pricier="Pricier options for {subject}{filters}:",
    found_more="More options for {subject}{filters}:",
    found_similar="Similar to that one{filters}:",
    browse="Here are some products{filters}:",
    corrected="(Did you mean {words}?)",
    was=" (was {price})",
    colours="colours: {colours}",
    sizes="; sizes {sizes}",
    sold_out_in=" - sold out {what}",
    sold_out=" - currently sold out",
    all_sold_out="They are all sold out{what} at the moment.",
    these_sold_out="These are sold out{what} at the moment; the ones below are not quite what you asked for, "
    "but available:",
    footer='Ask me about any of them (for example "the second one"), or for cheaper ones{others}.',
    other_variations=", another size or colour",
    none_cheaper="I found no {subject}{filters} cheaper than the ones I showed you.",
    none_pricier="I found no {subject}{filters} pricier than the ones I showed you.",
    cheapest_shown="The cheapest of them is the {name} ({price}).",
    none_more="That is all I have for {subject}{filters}.",
    none_filtered="I couldn't find {subject}{filters}.",
    in_other_colours="Here is what I have in other colours:",
    in_other_sizes="Here is what I have in other sizes:",
    size_missing="I have nothing in size {sizes}.",
    found_each="Here is what I found for each{filters}:",
    each="For {subject}:",
    each_close="For {subject}, the closest I have:",
    each_none="For {subject}, I found nothing that fits.",
    in_other_variations="Here is what I have in other colours or sizes:",
    relax="You could try {hints}.",
    another_size="another size",
    another_colour="another colour",
    wider_price="a wider price range",
    over_budget="Here is what I have for {subject} at a higher price:",
    sold_out_too="including items that are sold out",
    not_carried="Sorry, {store} doesn't seem to carry {subject}.",
    rephrase="If you describe it in other words, I'll look again.",
    by=" by {brand}",
    material="Material: {material}.",
    available="Available now: {items}.",
    item="{colour} {size} ({count} left)",
    more_items=" and {count} more",
    detail_sold_out="It is sold out at the moment.",
    which='Which one do you mean? Say for example "the second one".',
    no_list="Which product do you mean? Tell me what you are looking for and I'll show you some options.",
    out_of_range="I showed you {count} products; which one do you mean?",
    only_one="I showed you only one product; do you mean that one, or shall I look for more?",
    compare_head="{first} or {second}:",
    rating="; rated {rating}",
    cheaper_one="{name} is the cheaper one.",
    better_rated="{name} is rated higher.",
    error="Sorry, I could not do that: {error}",
    in_size="in size {sizes}",
    in_colour="in {colours}",
    colours_unlisted="None is listed {colour}, but these come in one colour only (their descriptions say which):",
    under="under {amount}",
    over="over {amount}",
    between="between {low} and {high}",
    in_stock="in stock",
    alternative="or",
    close="These come close to {subject}{filters}, though not exactly what you asked for:",
    also_close="Also close, though not exactly what you asked for:",
    quoted="“{text}”",
    not_told="{name}: the product information doesn't say.",
    not_told_but="{name}: the product information doesn't say exactly. What it says: {text}",
    not_told_rest="The product information doesn't say anything about the rest of your question.",
    unit_not_told="The product information doesn't say it in {unit}.",
    quote="{name}: {text}",
    only_one_says="Of these, only the description of the {name} speaks to that:",
    only_one_shown="I showed you only one:",
    from_list_before="From the list I showed you before:",
    yes="Yes.",
    no="No.",
    weighs="{name} weighs {weight}.",
    lightest="{name} is the lightest.",
    biggest="{name} is the biggest.",
    smallest="{name} is the smallest.",
    corded="{name} is corded: it runs on mains power and has no battery.",
    cheapest="{name} is the cheapest.",
    costs_more="{dearer} costs {amount} more than {cheaper}.",
    cost_together="Together they cost {amount}.",
    not_in_colours="not in {colours}",
    or_word=" or ",
    no_such_one="I didn't show you a {name} one, and I can't find {name} in the shop's catalog. "
    "Ask me about one of those I showed you, or for something else.",
    no_such_thing="I didn't show you any {thing}, and I can't find any in the shop's catalog. Ask me about one of "
    "those I showed you, or for something else.",
    told_elsewhere='Nothing I showed you is called "{thing}"; this is where the catalog speaks of it:',
    no_such_colour='I didn\'t show you anything in {colour}. Which one do you mean? Say for example "the second one".',
    in_colour_unshown="I hadn't shown you one in {colour}; the {name} comes in {colour}:",
    cheapest_first="cheapest first",
    dearest_first="most expensive first",
    ip_no="No, not water-resistant ({code})",
    ip_splash="splash-proof ({code}): rain and splashes, not going under water",
    ip_yes="Yes, waterproof ({code})",
    pick="I'd go for the {name} at {price}: of those I showed you, it fits what you asked for best.",
    pick_cheaper="If price matters most, the {name} at {price} costs less.",
    dearest="{name} is the most expensive.",
    costs="{name} costs {price}.",
    on_sale="{name} is on sale: {price}.",
    on_sale_some="{name} is on sale in {prices}; the others are at full price.",
    not_discounted="{name} is not discounted at the moment: {price}.",
    stock_yes="{name} is available{what}: {items}.",
    more_variations="{items} and {count} more",
    stock_no="{name} is sold out{what} at the moment.",
    not_made_in="{name} doesn't come{what}: only in {options}.",
    store_from="From our page “{title}”: {text}",
    store_topic="I'm not sure our pages answer exactly that. Our page “{title}” says: {text}",
    store_link="More: {url}",
    store_unknown="I don't have that information.",
    store_contact="You can reach the shop at {contact}.",
    broad="A good start for {subject}, one of each kind:",
    found_plain="Here is what I found{filters}:",
    cheaper_plain="Cheaper options{filters}:",
    pricier_plain="Pricier options{filters}:",
    more_plain="More options{filters}:",
    comes_in="{name} comes in {sizes}.",
    comes_only_in="{name} comes only in {sizes}.",
    no_colours="{name} does not come in a choice of colours.",
    sized_line="{name} in {size}: {price}, {stock}.",
    size_left="{count} left",
    size_sold_out="sold out at the moment",
    one_size="{name} comes in one size only.",
    from_price="from {price}",
    spec_list="Specs: {facts}.",
    spec="{name}: {facts}.",
    spec_is="yes, {what}",
    spec_is_not="no, not {what}",
    spec_has="{what}: yes",
    spec_has_not="{what}: no",
    spec_not_last="no, {rest} not {last}",
    costs_each="{name}: {prices}.",
    buy_here="You can add {name}{what} to your basket here: {url}",
    see_here="Here is {name} in the shop: {url}",
    no_link="{name} has no shop link in the catalog; you can order it from the shop's website.",
    empty_catalog="There are no products in the {store} catalog yet. Please come back soon.",
    said_of="What the {name} says about that: “{sentence}”",
)

GERMAN = Replies(
    greet="Hallo! Ich bin der Einkaufsassistent von {store}. Wonach suchen Sie heute?",
    thanks="Gern geschehen! Kann ich Ihnen noch bei etwas anderem helfen?",
    bye="Danke für Ihren Besuch bei {store}. Auf Wiedersehen!",
    identity="Ich bin der Einkaufsassistent von {store} und durchsuche den Katalog für Sie. Sagen Sie mir, "
    "was Sie brauchen, gern mit Größe, Farbe oder Budget.",
    off_topic="Ich kann Ihnen nur beim Einkaufen bei {store} helfen. Wonach suchen Sie?",
    unclear="Wonach suchen Sie? Beschreiben Sie es in ein paar Worten, gern mit Größe, Farbe oder Budget.",
    noted="Möchten Sie mehr dazu wissen, oder soll ich nach etwas anderem suchen?",
    found="Das habe ich für {subject}{filters} gefunden:",
    found_cheaper="Günstigere Angebote für {subject}{filters}:",
    found_cheaper_than_it="Günstiger als dieses, für {subject}{filters}:",
    found_cheaper_than_dearest="Nichts ist günstiger als alle gezeigten; diese kosten weniger als das teuerste davon:",
    none_cheaper_than_it="Ich habe keine {subject}{filters} gefunden, die günstiger sind als dieses.",
    found_pricier="Hochwertigere Angebote für {subject}{filters}:",
    found_more="Weitere Angebote für {subject}{filters}:",
    found_similar="Ähnliche Produkte{filters}:",
    browse="Hier sind einige Produkte{filters}:",
    corrected="(Meinten Sie {words}?)",
    was=" (statt {price})",
    colours="Farben: {colours}",
    sizes="; Größen {sizes}",
    sold_out_in=" - {what} ausverkauft",
    sold_out=" - derzeit ausverkauft",
    all_sold_out="Alle sind{what} derzeit ausverkauft.",
    these_sold_out="Diese sind{what} derzeit ausverkauft; die folgenden sind nicht genau das Gesuchte, aber verfügbar:",
    footer='Fragen Sie mich gern nach Details (zum Beispiel "das zweite"), nach günstigeren Angeboten{others}.',
    other_variations=", einer anderen Größe oder Farbe",
    none_cheaper="Ich habe keine günstigeren Angebote für {subject}{filters} gefunden als die gezeigten.",
    none_pricier="Ich habe keine hochwertigeren Angebote für {subject}{filters} gefunden als die gezeigten.",
    cheapest_shown="Am günstigsten davon ist {name} ({price}).",
    none_more="Mehr habe ich für {subject}{filters} nicht.",
    none_filtered="Ich habe nichts für {subject}{filters} gefunden.",
    in_other_colours="In anderen Farben habe ich:",
    in_other_sizes="In anderen Größen habe ich:",
    size_missing="In Größe {sizes} habe ich nichts.",
    found_each="Das habe ich für jedes gefunden{filters}:",
    each="Für {subject}:",
    each_close="Für {subject} kommt dem am nächsten:",
    each_none="Für {subject} habe ich nichts Passendes gefunden.",
    in_other_variations="In anderen Farben oder Größen habe ich:",
    relax="Versuchen Sie es vielleicht mit {hints}.",
    another_size="einer anderen Größe",
    another_colour="einer anderen Farbe",
    wider_price="einer größeren Preisspanne",
    over_budget="Das habe ich für {subject} zu einem höheren Preis:",
    sold_out_too="ausverkauften Artikeln",
    not_carried="Leider scheint {store} {subject} nicht im Sortiment zu haben.",
    rephrase="Wenn Sie es mit anderen Worten beschreiben, suche ich noch einmal.",
    by=" von {brand}",
    material="Material: {material}.",
    available="Sofort verfügbar: {items}.",
    item="{colour} {size} ({count} verfügbar)",
    more_items=" und {count} weitere",
    detail_sold_out="Derzeit ausverkauft.",
    which='Welches meinen Sie? Sagen Sie zum Beispiel "das zweite".',
    no_list="Welches Produkt meinen Sie? Sagen Sie mir, wonach Sie suchen, dann zeige ich Ihnen eine Auswahl.",
    out_of_range="Ich habe Ihnen {count} Produkte gezeigt; welches meinen Sie?",
    only_one="Ich habe Ihnen nur ein Produkt gezeigt; meinen Sie dieses, oder soll ich nach weiteren suchen?",
    compare_head="{first} oder {second}:",
    rating="; Bewertung {rating}",
    cheaper_one="{name} ist günstiger.",
    better_rated="{name} ist besser bewertet.",
    error="Das hat leider nicht geklappt: {error}",
    in_size="in Größe {sizes}",
    in_colour="in {colours}",
    colours_unlisted=(
        "Nichts ist {colour} gelistet, aber diese gibt es nur in einer Farbe (die Beschreibung sagt, in welcher):"
    ),
    under="unter {amount}",
    over="über {amount}",
    between="zwischen {low} und {high}",
    in_stock="auf Lager",
    alternative="oder",
    close="Nicht genau {subject}{filters}, aber diese kommen nahe:",
    also_close="Ebenfalls ähnlich, wenn auch nicht genau das Gesuchte:",
    quoted="„{text}“",
    not_told="{name}: Das ist in den Produktangaben nicht angegeben.",
    not_told_but="{name}: Das ist in den Produktangaben nicht genau angegeben. Dort steht: {text}",
    not_told_rest="Zum Rest Ihrer Frage ist in den Produktangaben nichts angegeben.",
    unit_not_told="In {unit} ist es in den Produktangaben nicht angegeben.",
    # (the catalog's sentences and specs stay in its language; the words around them say the reply's)
    quote="{name} — laut Produktangaben: {text}",
    only_one_says="Davon spricht nur die Beschreibung von {name} darüber:",
    only_one_shown="Ich habe Ihnen nur eines gezeigt:",
    from_list_before="Aus der Liste davor:",
    yes="Ja.",
    no="Nein.",
    weighs="{name} wiegt {weight}.",
    lightest="{name} ist am leichtesten.",
    biggest="{name} ist am größten.",
    smallest="{name} ist am kleinsten.",
    corded="{name} hat ein Kabel: es läuft am Stromnetz und hat keinen Akku.",
    cheapest="{name} ist am günstigsten.",
    costs_more="{dearer} kostet {amount} mehr als {cheaper}.",
    cost_together="Zusammen kosten sie {amount}.",
    not_in_colours="nicht in {colours}",
    or_word=" oder ",
    no_such_one="Ich habe Ihnen keins von {name} gezeigt, und im Katalog des Shops finde ich {name} nicht. "
    "Fragen Sie nach einem der gezeigten oder nach etwas anderem.",
    no_such_thing="„{thing}“ war nicht unter dem, was ich Ihnen gezeigt habe, und im Katalog des Shops finde ich so "
    "etwas nicht. Fragen Sie nach einem der gezeigten oder nach etwas anderem.",
    told_elsewhere="Nichts, was ich Ihnen gezeigt habe, heißt „{thing}“; hier spricht der Katalog davon:",
    no_such_colour='Ich habe Ihnen nichts in {colour} gezeigt. Welches meinen Sie? Sagen Sie zum Beispiel "das '
    'zweite".',
    in_colour_unshown="Ich hatte Ihnen keins in {colour} gezeigt; {name} gibt es in {colour}:",
    cheapest_first="die günstigsten zuerst",
    dearest_first="die teuersten zuerst",
    ip_no="Nein, nicht wassergeschützt ({code})",
    ip_splash="spritzwassergeschützt ({code}): Regen und Spritzer, nicht zum Untertauchen",
    ip_yes="Ja, wasserdicht ({code})",
    pick="Ich würde {name} für {price} nehmen: Von den gezeigten passt es am besten zu Ihrer Anfrage.",
    pick_cheaper="Wenn der Preis am meisten zählt: {name} für {price} ist günstiger.",
    dearest="{name} ist am teuersten.",
    costs="{name} kostet {price}.",
    on_sale="{name} ist im Angebot: {price}.",
    on_sale_some="{name} ist reduziert in {prices}; die anderen kosten den vollen Preis.",
    not_discounted="{name} ist derzeit nicht reduziert: {price}.",
    stock_yes="{name} ist{what} verfügbar: {items}.",
    more_variations="{items} und {count} weitere",
    stock_no="{name} ist{what} derzeit ausverkauft.",
    not_made_in="{name} gibt es nicht{what}, nur in {options}.",
    store_from="Aus unserer Seite „{title}“: {text}",
    store_topic="Ob unsere Seiten genau das beantworten, weiß ich nicht. Auf unserer Seite „{title}“ steht: {text}",
    store_link="Mehr: {url}",
    store_unknown="Diese Information habe ich leider nicht.",
    store_contact="Sie erreichen den Shop unter {contact}.",
    broad="Ein guter Anfang für {subject}, je eines pro Art:",
    found_plain="Das habe ich gefunden{filters}:",
    cheaper_plain="Günstigere Angebote{filters}:",
    pricier_plain="Hochwertigere Angebote{filters}:",
    more_plain="Weitere Angebote{filters}:",
    comes_in="{name} gibt es in {sizes}.",
    comes_only_in="{name} gibt es nur in {sizes}.",
    no_colours="{name} gibt es nicht in verschiedenen Farben.",
    sized_line="{name} in {size}: {price}, {stock}.",
    size_left="{count} verfügbar",
    size_sold_out="derzeit ausverkauft",
    one_size="{name} gibt es nur in einer Größe.",
    from_price="ab {price}",
    spec_list="Daten: {facts}.",
    spec="{name} — Angaben: {facts}.",
    spec_is="{what}: ja",
    spec_is_not="{what}: nein",
    spec_has="{what}: ja",
    spec_has_not="{what}: nein",
    spec_not_last="{rest} {last}: nein",
    costs_each="{name}: {prices}.",
    buy_here="Hier können Sie {name}{what} in den Warenkorb legen: {url}",
    see_here="Hier finden Sie {name} im Shop: {url}",
    no_link="Für {name} ist im Katalog kein Link hinterlegt; Sie können es auf der Website des Shops bestellen.",
    empty_catalog="Im Katalog von {store} gibt es noch keine Produkte. Schauen Sie bald wieder vorbei.",
    said_of="Was beim {name} dazu steht: „{sentence}“",
)

FRENCH = Replies(
    greet="Bonjour ! Je suis l'assistant d'achat de {store}. Que recherchez-vous aujourd'hui ?",
    thanks="Avec plaisir ! Puis-je vous aider à trouver autre chose ?",
    bye="Merci de votre visite chez {store}. Au revoir !",
    identity="Je suis l'assistant d'achat de {store} : je cherche dans le catalogue pour vous. Dites-moi ce "
    "qu'il vous faut, avec une taille, une couleur ou un budget si vous voulez.",
    off_topic="Je ne peux vous aider que pour vos achats chez {store}. Que recherchez-vous ?",
    unclear="Que recherchez-vous ? Dites-le en quelques mots, avec une taille, une couleur ou un budget "
    "si vous voulez.",
    noted="Voulez-vous en savoir plus, ou que je cherche autre chose ?",
    found="Voici ce que j'ai trouvé pour {subject}{filters} :",
    found_cheaper="Moins cher, pour {subject}{filters} :",
    found_cheaper_than_it="Moins cher que celui-ci, pour {subject}{filters} :",
    found_cheaper_than_dearest=(
        "Rien n'est moins cher que tous ceux-là ; ceux-ci coûtent moins que le plus cher d'entre eux :"
    ),
    none_cheaper_than_it="Je n'ai rien trouvé pour {subject}{filters} de moins cher que celui-ci.",
    found_pricier="Plus haut de gamme, pour {subject}{filters} :",
    found_more="Autres propositions pour {subject}{filters} :",
    found_similar="Dans le même genre{filters} :",
    browse="Voici quelques produits{filters} :",
    corrected="(Vouliez-vous dire {words} ?)",
    was=" (au lieu de {price})",
    colours="couleurs : {colours}",
    sizes=" ; tailles {sizes}",
    sold_out_in=" - épuisé {what}",
    sold_out=" - actuellement épuisé",
    all_sold_out="Ils sont tous épuisés{what} pour le moment.",
    these_sold_out="Ceux-ci sont épuisés{what} pour le moment ; les suivants ne sont pas exactement ce que vous "
    "cherchez, mais disponibles :",
    footer="Demandez-moi des détails (par exemple « le deuxième »), des articles moins chers{others}.",
    other_variations=", une autre taille ou couleur",
    none_cheaper="Je n'ai rien trouvé de moins cher pour {subject}{filters} que ce que je vous ai montré.",
    none_pricier="Je n'ai rien trouvé de plus haut de gamme pour {subject}{filters} que ce que je vous ai montré.",
    cheapest_shown="Le moins cher d'entre eux est {name} ({price}).",
    none_more="C'est tout ce que j'ai pour {subject}{filters}.",
    none_filtered="Je n'ai rien trouvé pour {subject}{filters}.",
    in_other_colours="Voici ce que j'ai dans d'autres couleurs :",
    in_other_sizes="Voici ce que j'ai dans d'autres tailles :",
    size_missing="Je n'ai rien en taille {sizes}.",
    found_each="Voici ce que j'ai trouvé pour chacun{filters} :",
    each="Pour {subject} :",
    each_close="Pour {subject}, le plus proche :",
    each_none="Pour {subject}, je n'ai rien trouvé qui convienne.",
    in_other_variations="Voici ce que j'ai dans d'autres couleurs ou tailles :",
    relax="Essayez peut-être {hints}.",
    another_size="une autre taille",
    another_colour="une autre couleur",
    wider_price="une fourchette de prix plus large",
    over_budget="Voici ce que j'ai pour {subject} à un prix plus élevé :",
    sold_out_too="en incluant les articles épuisés",
    not_carried="Désolé, {store} ne semble pas proposer {subject}.",
    rephrase="Si vous le décrivez autrement, je cherche à nouveau.",
    by=" de {brand}",
    material="Matière : {material}.",
    available="Disponible : {items}.",
    item="{colour} {size} ({count} en stock)",
    more_items=" et {count} autres",
    detail_sold_out="Actuellement épuisé.",
    which="Lequel voulez-vous dire ? Dites par exemple « le deuxième ».",
    no_list="De quel produit parlez-vous ? Dites-moi ce que vous cherchez et je vous montre une sélection.",
    out_of_range="Je vous ai montré {count} produits ; lequel voulez-vous dire ?",
    only_one="Je ne vous ai montré qu'un seul produit ; voulez-vous dire celui-là, ou dois-je en chercher d'autres ?",
    compare_head="{first} ou {second} :",
    rating=" ; note {rating}",
    cheaper_one="{name} est le moins cher.",
    better_rated="{name} est le mieux noté.",
    error="Désolé, je n'ai pas pu le faire : {error}",
    in_size="en taille {sizes}",
    in_colour="en {colours}",
    colours_unlisted=(
        "Rien n'est référencé {colour}, mais ces articles n'existent qu'en une couleur (la description dit laquelle) :"
    ),
    under="à moins de {amount}",
    over="à plus de {amount}",
    between="entre {low} et {high}",
    in_stock="en stock",
    alternative="ou",
    close="Pas exactement {subject}{filters}, mais ceux-ci s'en approchent :",
    also_close="Proches aussi, sans être exactement ce que vous cherchez :",
    quoted="« {text} »",
    not_told="{name} : les informations du produit ne le précisent pas.",
    not_told_but="{name} : les informations du produit ne le précisent pas exactement. Elles disent : {text}",
    not_told_rest="Pour le reste de votre question, les informations du produit ne le précisent pas.",
    unit_not_told="Les informations du produit ne le précisent pas en {unit}.",
    quote="{name} — d'après ses informations : {text}",
    only_one_says="Parmi eux, seule la description de {name} en parle :",
    only_one_shown="Je ne vous en ai montré qu'un seul :",
    from_list_before="Dans la liste d'avant :",
    yes="Oui.",
    no="Non.",
    weighs="{name} pèse {weight}.",
    lightest="{name} est le plus léger.",
    biggest="{name} est le plus grand.",
    smallest="{name} est le plus petit.",
    corded="{name} est filaire : il fonctionne sur secteur, sans batterie.",
    cheapest="{name} est le moins cher.",
    costs_more="{dearer} coûte {amount} de plus que {cheaper}.",
    cost_together="Ensemble, ils coûtent {amount}.",
    not_in_colours="pas en {colours}",
    or_word=" ou ",
    no_such_one="Je ne vous ai rien montré de {name}, et je ne trouve pas {name} dans le catalogue de la boutique. "
    "Demandez-moi l'un de ceux que je vous ai montrés, ou autre chose.",
    no_such_thing="Je ne vous ai rien montré qui s'appelle « {thing} », et je n'en trouve pas dans le catalogue de "
    "la boutique. Demandez-moi l'un de ceux que je vous ai montrés, ou autre chose.",
    told_elsewhere="Rien de ce que je vous ai montré ne s'appelle « {thing} » ; voici où le catalogue en parle :",
    no_such_colour="Je ne vous ai rien montré en {colour}. Lequel voulez-vous dire ? Dites par exemple « le "
    "deuxième ».",
    in_colour_unshown="Je ne vous en avais montré aucun en {colour} ; {name} existe en {colour} :",
    cheapest_first="les moins chers d'abord",
    dearest_first="les plus chers d'abord",
    ip_no="Non, pas résistant à l'eau ({code})",
    ip_splash="résistant aux éclaboussures ({code}) : pluie et projections, pas l'immersion",
    ip_yes="Oui, étanche ({code})",
    pick="Je choisirais {name} à {price} : parmi ceux que je vous ai montrés, c'est celui qui correspond le mieux à "
    "votre demande.",
    pick_cheaper="Si le prix compte le plus, {name} à {price} coûte moins cher.",
    dearest="{name} est le plus cher.",
    costs="{name} coûte {price}.",
    on_sale="{name} est en promotion : {price}.",
    on_sale_some="{name} est en promotion en {prices} ; les autres sont au prix normal.",
    not_discounted="{name} n'est pas en promotion en ce moment : {price}.",
    stock_yes="{name} est disponible{what} : {items}.",
    more_variations="{items} et {count} autres",
    stock_no="{name} n'est pas disponible{what} pour le moment.",
    not_made_in="{name} n'existe pas{what}, seulement en {options}.",
    store_from="Extrait de notre page « {title} » : {text}",
    store_topic="Je ne suis pas sûr que nos pages répondent exactement à cela. Notre page « {title} » dit : {text}",
    store_link="Plus : {url}",
    store_unknown="Je n'ai pas cette information.",
    store_contact="Vous pouvez joindre la boutique : {contact}.",
    broad="Pour bien commencer ({subject}), un de chaque :",
    found_plain="Voici ce que j'ai trouvé{filters} :",
    cheaper_plain="Moins cher{filters} :",
    pricier_plain="Plus haut de gamme{filters} :",
    more_plain="Autres propositions{filters} :",
    comes_in="{name} existe en {sizes}.",
    comes_only_in="{name} existe uniquement en {sizes}.",
    no_colours="{name} n'existe pas en plusieurs couleurs.",
    sized_line="{name} en {size} : {price}, {stock}.",
    size_left="{count} en stock",
    size_sold_out="épuisé pour le moment",
    one_size="{name} existe en une seule taille.",
    from_price="à partir de {price}",
    spec_list="Caractéristiques : {facts}.",
    spec="{name} — caractéristiques : {facts}.",
    spec_is="{what} : oui",
    spec_is_not="{what} : non",
    spec_has="{what} : oui",
    spec_has_not="{what} : non",
    spec_not_last="{rest} {last} : non",
    costs_each="{name} : {prices}.",
    buy_here="Vous pouvez ajouter {name}{what} à votre panier ici : {url}",
    see_here="Voici {name} dans la boutique : {url}",
    no_link="Le catalogue n'a pas de lien pour {name} ; vous pouvez le commander sur le site de la boutique.",
    empty_catalog="Le catalogue de {store} ne contient encore aucun produit. Revenez bientôt.",
    said_of="Ce que dit la fiche du {name} à ce sujet : « {sentence} »",
)

REPLIES = {"en": ENGLISH, "de": GERMAN, "fr": FRENCH}


def replies_for(language: str) -> Replies | None:
    """The templates of a store language (BCP 47: "de", "de-AT"), or None when there are none."""
    return REPLIES.get(language.split("-")[0].casefold())
