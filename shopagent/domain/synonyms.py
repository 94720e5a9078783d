"""The built-in starter list of shoppers' words for things, by the catalog's language.

For an English catalog: regional and everyday words for common retail products (clothing,
footwear, outdoor, kitchen, electronics, pets) and the German and French nouns for them, so a
German shopper in an English shop is served on day one; `words/de.tsv` and `words/fr.tsv` add
some 4,500 more German and French words, by trade and for what shoppers ask of a product (none
of them also an English shop word).
A shop's own `[search.synonyms]` goes over this list, and a word the catalog's own names use is never replaced (see
`Vocabulary`), so a shop that sells "trainers" keeps that word.

Keys and values are plain words (folded when the list is built: case and accents do not
matter); a value may be several words ("running shoes"), and a word of several meanings lists
them, most usual first ("geschirr": "tableware|harness": the first the catalog's names use).
Catalogs in other languages start with no built-in list.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources

_ENGLISH_EVERYDAY = {
    # clothing
    "jumper": "sweater", "pullover": "sweater", "sweatshirt": "sweater", "hoody": "hoodie",
    "body warmer": "gilet", "bodywarmer": "gilet", "vest": "gilet", "puffa": "puffer jacket",
    "puffer": "puffer jacket", "anorak": "jacket", "cagoule": "rain jacket", "kagoul": "rain jacket",
    "windcheater": "windbreaker", "pants": "trousers",
    "slacks": "trousers", "trackies": "jogger", "tracksuit bottoms": "jogger",
    "sweatpants": "jogger", "tee": "t shirt", "tees": "t shirt", "tshirt": "t shirt", "vest top": "tank top",
    "singlet": "tank top", "knickers": "briefs", "undies": "underwear", "jim jams": "pyjamas",
    "pjs": "pyjamas", "pajamas": "pyjamas", "beanie hat": "beanie", "woolly hat": "beanie",
    "bobble hat": "beanie", "toque": "beanie", "winter hat": "beanie", "warm hat": "beanie", "knit hat": "beanie",
    "knitted hat": "beanie", "wool hat": "beanie", "teddy": "sherpa", "teddy lined": "sherpa lined",
    "fleecy": "fleece", "frock": "dress", "tux": "tuxedo", "dinner jacket": "tuxedo",
    # footwear
    "trainers": "sneakers", "runners": "running shoes", "kicks": "sneakers", "plimsolls": "sneakers",
    "gumboots": "wellington boots", "gummies": "wellington boots", "wellies": "wellington boots",
    "rain boots": "wellington boots", "rainboots": "wellington boots", "galoshes": "wellington boots",
    "flip flops": "sandals", "flipflops": "sandals", "sliders": "slides",
    "stilettos": "heels", "hiking shoes": "hiking boots", "walking boots": "hiking boots",
    "booties": "ankle boots",     # accessories
    "sunnies": "sunglasses", "shades": "sunglasses", "handbag": "bag", "rucksack": "backpack",
    "knapsack": "backpack", "daypack": "backpack",
    "bumbag": "belt bag", "bum bag": "belt bag", "fanny pack": "belt bag", "brolly": "umbrella",
    "mitts": "mittens", "muffler": "scarf", "snood": "neck warmer",
    # outdoor
    "torch": "flashlight", "head torch": "headlamp", "headtorch": "headlamp", "head lamp": "headlamp",
    "sleeping mat": "sleeping pad", "roll mat": "sleeping pad", "bivvy": "bivy", "gas bottle": "gas canister",
    "flask": "vacuum flask", "thermos": "vacuum flask",
    "hydration bladder": "hydration reservoir", "camelbak": "hydration reservoir", "bike": "bicycle",
    "push bike": "bicycle", "bike lock": "lock", "d lock": "lock",
    # kitchen
    "frying pan": "skillet", "fry pan": "skillet", "casserole": "dutch oven", "cocotte": "dutch oven",
    "cafetiere": "french press",
    "cafetière": "french press", "press pot": "french press", "chopping board": "cutting board",
    "tea towel": "dish towel", "clingfilm": "cling wrap",
    "baking tray": "baking sheet", "sheet pan": "baking sheet", "oven gloves": "oven mitts",
    "sieve": "strainer", "cutlery": "flatware",
    "silverware": "flatware", "crockery": "tableware",     # electronics
    "telly": "tv", "television": "tv", "cans": "headphones", "earphones": "earbuds", "ear buds": "earbuds",
    "in ear": "earbuds", "earpods": "earbuds", "headset": "headphones", "power brick": "charger", "mic": "microphone",
    "mics": "microphones", "anc": "noise cancelling", "magsafe": "magnetic",
    "wall plug": "charger", "powerbank": "power bank",
    "battery pack": "power bank", "portable charger": "power bank", "charging lead": "charging cable",
    "charging cord": "charging cable", "dongle": "adapter",
    "adaptor": "adapter", "memory stick": "usb flash drive", "usb stick": "usb flash drive",
    "thumb drive": "usb flash drive", "pen drive": "usb flash drive", "sd card": "memory card",
    "mobile": "phone", "cell phone": "phone", "cellphone": "phone", "smartphone": "phone",
    "mobile cover": "phone case", "phone cover": "phone case", "screen guard": "screen protector",
    "tempered glass": "screen protector", "sat nav": "gps", "satnav": "gps", "webcam": "web camera",
    "cam": "camera", "dashcam": "dash cam", "fitness tracker": "activity tracker", "smart watch": "smartwatch",
    "gamepad": "controller", "joypad": "controller", "ereader": "e reader", "kindle": "e reader",
    "wifi": "wi fi", "extension lead": "power strip", "multi plug": "power strip", "mouse pad": "mouse mat",
    "mousepad": "mouse mat",
    # garden
    "pruning shears": "secateurs", "pruners": "secateurs", "hand pruners": "secateurs", "lawnmower": "lawn mower",
    "strimmer": "grass trimmer", "weed whacker": "grass trimmer", "weed eater": "grass trimmer",
    "hosepipe": "hose", "garden hose": "hose", "potting mix": "compost", "planter box": "planter",
    "weedkiller": "weed killer",
    # pets
    "leash": "lead", "dog leash": "dog lead", "doggy": "dog", "doggie": "dog", "pup": "puppy",
    "kitty": "cat", "moggy": "cat", "bunny": "rabbit", "bunnies": "rabbit", "kibble": "dry food",
    "tinned food": "wet food", "canned food": "wet food",
    "kitty litter": "cat litter", "litter box": "litter tray", "cat toilet": "litter tray",
    "poop bags": "poo bags", "poo bags": "waste bags", "dog bags": "waste bags", "cat tower": "cat tree",
    "scratcher": "scratching post", "scratch post": "scratching post", "nail clippers": "claw clippers",
    "nail trimmer": "claw clippers", "wormer": "worming", "dewormer": "worming", "fish tank": "aquarium",
    "pet carrier": "carrier", "cat carrier": "carrier", "crate": "transport box", "kennel": "transport box",
    "travel crate": "transport box", "dog crate": "transport box", "water fountain": "drinking fountain",
    "snacks": "treats", "chew toy": "chew", "tug toy": "rope toy",
    # toys (brand names shoppers use for a kind of thing; the first word of a group the catalog's names use)
    "lego": "building bricks|construction bricks|bricks", "legos": "building bricks|construction bricks|bricks",
    "duplo": "large building bricks|building bricks", "playdoh": "modelling dough|play dough|modelling clay",
    "play doh": "modelling dough|play dough|modelling clay", "playdough": "modelling dough|play dough|modelling clay",
    "plasticine": "modelling clay|modelling dough", "stuffed animal": "soft toy|plush|cuddly toy",
    "stuffed toy": "soft toy|plush|cuddly toy", "plushie": "plush|soft toy", "plushy": "plush|soft toy",
    "cuddly toy": "soft toy|plush", "jigsaw": "puzzle", "felt tips": "felt tip pens|markers",
    "kiddie pool": "paddling pool", "rc car": "remote control car", "radio controlled car": "remote control car",
    "nerf gun": "foam blaster|blaster", "hot wheels": "die cast cars|toy cars",
    "matchbox cars": "die cast cars|toy cars",
    "fancy dress": "costume|dress up", "dressing up": "dress up|costume",
    "train set": "railway|train set", "toy train": "railway|train", "dummy": "pacifier|soother",
    "pushchair": "stroller|buggy",
}  # fmt: skip

# More of the same, for the trades a small shop runs (clothing, footwear, outdoor and cycling, kitchen,
# electronics, pets, garden): British and American words for one thing, spellings, and everyday or brand
# names shoppers use for a kind of thing. Written from what shoppers call things, not from any shop's
# catalog or query set; a word two things share ("lead": a cable or a leash, "mac", "pumps") is left out.
_ENGLISH_MORE = {
    # clothing
    "cardi": "cardigan", "cardie": "cardigan", "denims": "jeans", "dungarees": "overalls",
    "pantyhose": "tights", "nylons": "tights", "swimming costume": "swimsuit", "cossie": "swimsuit",
    "bathing suit": "swimsuit", "swimming trunks": "swim shorts", "board shorts": "swim shorts",
    "boardshorts": "swim shorts", "dressing gown": "bathrobe", "nightie": "nightdress", "nightgown": "nightdress",
    "sports jacket": "blazer", "suit jacket": "blazer", "raincoat": "rain jacket", "rain coat": "rain jacket",
    "waterproof jacket": "rain jacket", "trench": "trench coat", "overcoat": "coat", "tennis shoes": "sneakers",
    "gym shoes": "sneakers", "trekking boots": "hiking boots", "hillwalking boots": "hiking boots",
    "house shoes": "slippers", "holdall": "duffel bag", "duffle bag": "duffel bag",
    "weekend bag": "weekender", "shopper bag": "tote bag", "specs": "glasses", "spectacles": "glasses",
    "neck gaiter": "neck warmer", "neck tube": "neck warmer", "jewelry": "jewellery",
    # kitchen
    "roasting tin": "roasting pan", "roasting tray": "roasting pan", "cake tin": "cake pan",
    "loaf tin": "loaf pan", "muffin tray": "muffin tin", "muffin pan": "muffin tin",
    "casserole dish": "baking dish", "oven dish": "baking dish", "ovenproof dish": "baking dish",
    "gratin dish": "baking dish", "lasagne dish": "baking dish", "colander": "strainer",
    "kitchen scales": "kitchen scale", "weighing scales": "kitchen scale", "measuring jug": "measuring cup",
    "liquidiser": "blender",
    "liquidizer": "blender", "smoothie maker": "blender", "electric whisk": "hand mixer",
    "coffee maker": "coffee machine", "espresso maker": "espresso machine",
    "stovetop espresso maker": "moka pot", "stovetop coffee maker": "moka pot", "coffee press": "french press",
    "tea pot": "teapot", "dinnerware": "tableware", "dinner set": "tableware", "dinner service": "tableware",
    "bread bin": "bread box", "breadbin": "bread box", "tin opener": "can opener", "wine opener": "corkscrew",
    "tupperware": "storage container", "food container": "storage container", "lunchbox": "lunch box",
    "pepper grinder": "pepper mill", "salt grinder": "salt mill", "pinny": "apron", "dish rack": "dish drainer",
    "drying rack": "dish drainer", "draining rack": "dish drainer", "crockpot": "slow cooker",
    "crock pot": "slow cooker", "airfryer": "air fryer", "toastie maker": "sandwich maker",
    "sandwich toaster": "sandwich maker", "organizer": "organiser",
    # electronics
    "airpods": "earbuds", "ear phones": "earbuds", "sound bar": "soundbar", "flatscreen": "tv",
    "wall charger": "charger", "charging plug": "charger", "plug charger": "charger", "power adapter": "charger",
    "hdmi lead": "hdmi cable", "extension cord": "power strip", "power board": "power strip",
    "surge protector": "power strip", "wifi extender": "wi fi extender", "wifi booster": "wi fi extender",
    "range extender": "wi fi extender", "cctv": "security camera", "doorbell camera": "video doorbell",
    "smart doorbell": "video doorbell", "smart socket": "smart plug", "wifi plug": "smart plug",
    "light bulb": "bulb", "lightbulb": "bulb", "hard disk": "hard drive", "external drive": "hard drive",
    "hdd": "hard drive", "ebook reader": "e reader", "e book reader": "e reader", "ipad": "tablet",
    "fitbit": "activity tracker", "step counter": "activity tracker", "pedometer": "activity tracker",
    "games console": "console", "game console": "console", "gaming console": "console",
    "game controller": "controller", "joystick": "controller", "computer screen": "monitor",
    "pc monitor": "monitor", "car camera": "dash cam", "record player": "turntable", "vinyl player": "turntable",
    # pets
    "dog basket": "dog bed", "cat flap": "pet door", "dog flap": "pet door", "poop scoop": "pooper scooper",
    "dog biscuits": "dog treats", "dog snacks": "dog treats", "goodies": "treats", "flea drops": "flea treatment",
    "litter pan": "litter tray", "fishtank": "aquarium", "dog dish": "dog bowl",
    "cat dish": "cat bowl", "deshedder": "deshedding tool", "furminator": "deshedding tool",
    "ball chucker": "ball launcher", "ball thrower": "ball launcher", "snuffle mat": "sniffle mat",
    "dog gate": "pet gate", "stair gate": "pet gate", "hutch": "rabbit hutch",
    # garden
    "hedge cutter": "hedge trimmer", "hedge clippers": "hedge shears", "shovel": "spade",
    "garden fork": "digging fork", "barrow": "wheelbarrow", "grass cutter": "lawn mower",
    "compost bin": "composter", "potting soil": "compost", "potting compost": "compost",
    "fertilizer": "fertiliser", "plant food": "fertiliser", "plant feed": "fertiliser",
    "herbicide": "weed killer", "bird box": "nest box", "birdhouse": "nest box", "bird house": "nest box",
    "nesting box": "nest box", "grow bag": "growbag", "raised garden bed": "raised bed", "window box": "planter",
    "kneeler": "kneeling pad", "kneeling mat": "kneeling pad", "garden kneeler": "kneeling pad",
    "gardening gloves": "garden gloves", "bbq": "barbecue", "barbeque": "barbecue", "firepit": "fire pit",
    "dibble": "dibber",
    # outdoor and cycling
    "bike helmet": "bicycle helmet", "cycle helmet": "bicycle helmet", "cycling helmet": "bicycle helmet",
    "tire": "tyre", "tires": "tyre", "multitool": "multi tool", "bidon": "bottle", "airbed": "air mattress",
    "air bed": "air mattress", "blow up bed": "air mattress", "camp stove": "camping stove",
    "gas stove": "camping stove", "folding chair": "camping chair", "cool box": "cooler", "coolbox": "cooler",
    "hiking poles": "trekking poles", "walking poles": "trekking poles", "waterproof trousers": "rain trousers",
    "overtrousers": "rain trousers", "over trousers": "rain trousers", "thermals": "base layer",
}  # fmt: skip

_GERMAN = {
    # Kleidung
    "jacke": "jacket", "jacken": "jacket", "mantel": "coat", "mäntel": "coat", "daunenjacke": "down jacket",
    "regenjacke": "rain jacket", "weste": "gilet", "pullover": "sweater",
    "strickjacke": "cardigan", "kapuzenpullover": "hoodie", "hemd": "shirt", "hemden": "shirt",
    "bluse": "blouse", "kleid": "dress", "kleider": "dress", "hosen": "trousers", "socken": "socks",
    "strümpfe": "socks",
    "mütze": "beanie", "muetze": "beanie", "schal": "scarf", "handschuhe": "gloves", "gürtel": "belt",
    "guertel": "belt", "tasche": "bag|case", "rucksack": "backpack", "sonnenbrille": "sunglasses",
    "wolle": "wool", "leder": "leather", "baumwolle": "cotton", "leinen": "linen",
    "damen": "women", "herren": "men", "kinder": "kids", "warme": "warm", "wasserdicht": "waterproof",
    # Schuhe
    "schuhe": "shoes", "schuh": "shoes", "turnschuhe": "sneakers", "sportschuhe": "sneakers",
    "laufschuhe": "running shoes", "stiefel": "boots", "winterstiefel": "winter boots",
    "gummistiefel": "wellington boots", "wanderschuhe": "hiking boots", "wanderstiefel": "hiking boots",
    "sandalen": "sandals", "hausschuhe": "slipper", "pantoffeln": "slipper",
    # Outdoor
    "zelt": "tent", "schlafsack": "sleeping bag", "isomatte": "sleeping pad", "stirnlampe": "headlamp",
    "taschenlampe": "flashlight", "fahrrad": "bicycle", "fahrradhelm": "bicycle helmet",
    "helm": "helmet", "schloss": "lock", "fahrradschloss": "bicycle lock", "trinkflasche": "bottle",
    "thermoskanne": "vacuum flask", "kocher": "stove", "wandern": "hiking", "zelten": "camping",
    # Küche
    "pfanne": "pan", "bratpfanne": "skillet", "topf": "pot", "töpfe": "pot", "kochtopf": "pot",
    "messer": "knife", "brett": "board", "schneidebrett": "cutting board", "schüssel": "bowl",
    "tasse": "mug", "becher": "mug", "teller": "plate", "glas": "glass", "gläser": "glass",
    "kaffeemaschine": "coffee machine", "espressokocher": "moka pot", "wasserkocher": "kettle",
    "backform": "baking tin",
    "besteck": "flatware", "geschirr": "tableware|harness", "kanne": "pot", "teekanne": "teapot",
    # Elektronik
    "kopfhörer": "headphones", "kopfhoerer": "headphones", "ohrhörer": "earbuds", "lautsprecher": "speaker",
    "ladegerät": "charger", "ladegeraet": "charger", "netzteil": "charger", "ladekabel": "charging cable",
    "kabel": "cable", "akku": "battery", "handyhülle": "phone case",
    "hülle": "case", "huelle": "case", "displayschutz": "screen protector", "fernseher": "tv",
    "tastatur": "keyboard", "maus": "mouse", "bildschirm": "monitor", "speicherkarte": "memory card",
    "kamera": "camera", "uhr": "watch", "geschenk": "gift", "günstig": "cheap", "guenstig": "cheap",
    "billig": "cheap", "kabellos": "wireless",
    "regenschirm": "umbrella", "badeanzug": "swimsuit", "unterwäsche": "underwear", "schlafanzug": "pyjamas",
    "anzug": "suit", "krawatte": "tie", "sakko": "blazer", "jackett": "blazer", "strickpullover": "sweater",
    "fleecejacke": "fleece jacket", "softshelljacke": "softshell jacket", "winterjacke": "winter jacket",
    "wintermantel": "winter coat", "lederjacke": "leather jacket", "stiefeletten": "ankle boots",
    "halbschuhe": "shoes", "backblech": "baking sheet", "auflaufform": "baking dish", "sieb": "strainer",
    "reibe": "grater", "schneebesen": "whisk", "kochlöffel": "wooden spoon", "pfannenwender": "spatula",
    "kelle": "ladle", "vorratsdose": "storage jar", "pfeffermühle": "pepper mill",
    "kaffeemühle": "coffee grinder", "messerblock": "knife block", "schäler": "peeler", "deckel": "lid",
    "bräter": "roaster", "gusseisen": "cast iron", "edelstahl": "stainless steel", "antihaft": "non stick",
    "induktion": "induction", "spülmaschinenfest": "dishwasher safe", "powerbank": "power bank",
    "fernbedienung": "remote control", "beamer": "projector", "drucker": "printer", "festplatte": "hard drive",
    "usb stick": "usb flash drive", "steckdosenleiste": "power strip", "glühbirne": "bulb", "lampe": "lamp|light",
    "spielkonsole": "console", "ladestation": "charging station", "armband": "strap",
    "schutzfolie": "screen protector", "panzerglas": "screen protector",
    "geräuschunterdrückung": "noise cancelling", "rauschunterdrückung": "noise cancelling",
    "wasserfest": "waterproof", "regenhose": "rain trousers", "funktionsshirt": "base layer",
    "thermounterwäsche": "thermal base layer", "wanderhose": "hiking trousers",
    "trinkblase": "hydration reservoir", "campingkocher": "camping stove", "luftmatratze": "air mattress",
    "campingstuhl": "camping chair", "kompass": "compass", "fahrradlicht": "bike light", "klingel": "bell",
    "pumpe": "pump", "schlauch": "hose|inner tube", "reifen": "tyre", "sattel": "saddle", "gepäckträger": "rack",
    "fahrradtasche": "pannier", "korb": "basket", "kindersitz": "child seat", "leicht": "lightweight",
    "gepäckträgertasche": "pannier", "gepäckträgertaschen": "pannier", "laufrad": "balance bike|wheel",
    "gaskocher": "gas stove|stove", "vorderlicht": "front light", "frontlicht": "front light",
    "fahrradständer": "kickstand|bike stand", "anhänger": "trailer|pendant",
    "schwer": "heavy", "klein": "small", "gross": "large", "groß": "large", "kinderfahrrad": "kids bike",
    # Tierbedarf
    "hund": "dog", "hunde": "dog", "katze": "cat", "katzen": "cat", "welpe": "puppy", "welpen": "puppy",
    "kätzchen": "kitten", "kaninchen": "rabbit", "meerschweinchen": "guinea pig", "vogel": "bird",
    "vögel": "bird", "futter": "food", "hundefutter": "dog food", "katzenfutter": "cat food",
    "trockenfutter": "dry food", "nassfutter": "wet food", "leckerli": "treats", "leckerlis": "treats",
    "kauknochen": "chew", "leine": "lead", "hundeleine": "dog lead", "halsband": "collar",
    "hundegeschirr": "dog harness", "brustgeschirr": "harness", "hundebett": "dog bed", "katzenbett": "cat bed",
    "napf": "bowl", "fressnapf": "bowl", "spielzeug": "toy", "katzenstreu": "cat litter", "streu": "litter",
    "katzenklo": "litter tray", "kratzbaum": "cat tree", "bürste": "brush", "kamm": "comb",
    "transportbox": "transport box", "käfig": "cage", "heu": "hay", "zecken": "tick", "floh": "flea",
    "flöhe": "flea", "getreidefrei": "grain free", "kotbeutel": "waste bags", "decke": "blanket",
    "weihnachten": "christmas", "geburtstag": "birthday", "sommer": "summer", "frühling": "spring",
    "bett": "bed", "betten": "bed",
    "waschbar": "washable", "maschinenwaschbar": "machine washable",
    "faltbar": "foldable", "zusammenklappbar": "foldable", "rutschfest": "non slip", "kissen": "cushion",
}  # fmt: skip

_FRENCH = {
    # vêtements
    "veste": "jacket", "vestes": "jacket", "blouson": "jacket", "manteau": "coat", "doudoune": "down jacket",
    "imperméable": "raincoat", "impermeable": "waterproof", "chandail": "sweater", "chemise": "shirt",
    "chemisier": "blouse",
    "jupe": "skirt", "pantalon": "trousers", "chaussettes": "socks", "bonnet": "beanie",
    "écharpe": "scarf", "echarpe": "scarf", "gants": "gloves", "ceinture": "belt", "sac": "bag",
    "sac à dos": "backpack", "sac a dos": "backpack", "lunettes de soleil": "sunglasses",
    "pull": "sweater", "pulls": "sweater", "laine": "wool", "cuir": "leather", "coton": "cotton", "lin": "linen",
    "femme": "women", "femmes": "women", "homme": "men", "hommes": "men", "enfant": "kids", "enfants": "kids",
    "chaud": "warm", "chaude": "warm", "chauds": "warm",
    # chaussures
    "chaussures": "shoes", "chaussure": "shoes", "bottes": "boots", "bottines": "ankle boots",
    "bottes de pluie": "wellington boots",
    "chaussures de randonnée": "hiking boots", "sandales": "sandals", "chaussons": "slipper",
    "pantoufles": "slipper", "escarpins": "heels", "baskets": "sneakers",
    # plein air
    "tente": "tent", "sac de couchage": "sleeping bag", "lampe frontale": "headlamp", "frontale": "headlamp",
    "lampe de poche": "flashlight", "vélo": "bicycle", "velo": "bicycle", "casque vélo": "bicycle helmet",
    "antivol": "lock", "gourde": "bottle", "réchaud": "stove", "randonnée": "hiking", "randonnee": "hiking",
    "lampe avant": "front light", "chaussures de rando": "hiking boots", "porte-bagages": "rack",
    "poche à eau": "hydration reservoir", "cadenas": "lock|padlock",
    "multioutil": "multitool|multi tool", "multi-outil": "multitool|multi tool", "lubrifiant": "lube",
    "sacoche de guidon": "handlebar bag", "sacoche de selle": "saddle bag", "casque de vélo": "bicycle helmet",
    # cuisine
    "poêle": "pan", "poele": "pan", "marmite": "pot", "cocotte": "dutch oven",
    "couteau": "knife", "couteaux": "knife", "planche à découper": "cutting board", "bol": "bowl",
    "saladier": "bowl", "tasse": "mug", "assiette": "plate", "verre": "glass", "verres": "glass",
    "cafetière": "coffee maker", "cafetière italienne": "moka pot",
    "bouilloire": "kettle", "moule": "baking tin", "théière": "teapot",
    "couverts": "flatware", "vaisselle": "tableware",
    # électronique
    "casque": "headphones", "écouteurs": "earbuds", "ecouteurs": "earbuds", "enceinte": "speaker",
    "haut parleur": "speaker", "chargeur": "charger", "câble": "cable", "batterie externe": "power bank",
    "batterie": "battery", "téléphone": "phone",
    "telephone": "phone", "coque": "phone case", "protection écran": "screen protector",
    "télé": "tv", "tele": "tv", "téléviseur": "tv", "clavier": "keyboard", "souris": "mouse",
    "écran": "monitor", "ecran": "monitor", "carte mémoire": "memory card", "appareil photo": "camera",
    "montre": "watch", "cadeau": "gift", "pas cher": "cheap", "sans fil": "wireless",
    "parapluie": "umbrella", "maillot de bain": "swimsuit", "pyjama": "pyjamas", "costume": "suit",
    "cravate": "tie", "polaire": "fleece", "blouson en cuir": "leather jacket", "talons": "heels",
    "mocassins": "loafers", "plaque de cuisson": "baking sheet", "plat à gratin": "baking dish",
    "passoire": "strainer", "râpe": "grater", "fouet": "whisk", "spatule": "spatula", "louche": "ladle",
    "bocal": "jar", "mixeur": "blender", "grille pain": "toaster", "moulin à poivre": "pepper mill",
    "moulin à café": "coffee grinder", "bloc couteaux": "knife block", "éplucheur": "peeler",
    "couvercle": "lid", "fonte": "cast iron", "inox": "stainless steel", "antiadhésive": "non stick",
    "antiadhesive": "non stick", "lave vaisselle": "dishwasher", "télécommande": "remote control",
    "telecommande": "remote control", "vidéoprojecteur": "projector", "imprimante": "printer",
    "disque dur": "hard drive", "clé usb": "usb flash drive", "cle usb": "usb flash drive",
    "multiprise": "power strip", "ampoule": "bulb", "lampe": "lamp|light", "manette": "controller",
    "station de charge": "charging station", "bracelet": "strap", "tablette": "tablet", "étui": "case",
    "etui": "case", "housse": "case|cover", "film protecteur": "screen protector", "verre trempé": "screen protector",
    "réduction de bruit": "noise cancelling", "étanche": "waterproof", "etanche": "waterproof",
    "sous vêtement thermique": "thermal base layer", "matelas": "mattress|sleeping mat",
    "chaise de camping": "camping chair", "boussole": "compass", "éclairage vélo": "bike light",
    "sonnette": "bell", "pompe": "pump", "chambre à air": "inner tube", "pneu": "tyre", "selle": "saddle",
    "porte bagages": "rack", "sacoche": "pannier", "panier": "basket", "siège enfant": "child seat",
    "léger": "lightweight", "legere": "lightweight", "légère": "lightweight", "lourd": "heavy",
    "robe": "dress", "robes": "dress",
    # animalerie
    "chien": "dog", "chiens": "dog", "chiot": "puppy", "chaton": "kitten", "lapin": "rabbit",
    "cochon d inde": "guinea pig", "oiseau": "bird", "oiseaux": "bird", "croquettes": "dry food",
    "pâtée": "wet food", "patee": "wet food", "friandises": "treats", "laisse": "lead", "collier": "collar|necklace",
    "harnais": "harness", "coussin": "cushion", "gamelle": "bowl", "jouet": "toy", "jouets": "toy",
    "litière": "cat litter", "litiere": "cat litter", "bac à litière": "litter tray", "arbre à chat": "cat tree",
    "griffoir": "scratching post", "brosse": "brush", "peigne": "comb", "caisse de transport": "transport box",
    "sac de transport": "carrier", "foin": "hay", "tiques": "tick", "puces": "flea",
    "sans céréales": "grain free", "nourriture": "food", "couverture": "blanket", "lavable": "washable",
    "pliable": "foldable", "antidérapant": "non slip", "lit": "bed", "noël": "christmas", "noel": "christmas",
    "anniversaire": "birthday", "été": "summer", "ete": "summer", "hiver": "winter", "printemps": "spring",
}  # fmt: skip


def _listed(language: str) -> dict[str, str]:
    """The longer German or French list shipped beside this module (words/<language>.tsv)."""
    text = (resources.files(__package__) / "words" / f"{language}.tsv").read_text(encoding="utf-8")
    pairs = (line.split("\t") for line in text.splitlines() if line and not line.startswith("#"))
    return {word: english for word, english in pairs}


BUILTIN_SYNONYMS: Mapping[str, Mapping[str, str]] = {
    # (English words last: "cafetiere" is an English shopper's French press, whatever it is in French)
    "en": {**_listed("de"), **_listed("fr"), **_GERMAN, **_FRENCH, **_ENGLISH_MORE, **_ENGLISH_EVERYDAY}
}


def builtin_synonyms(catalog_language: str) -> Mapping[str, str]:
    """The starter list for a catalog written in `catalog_language` (empty when there is none)."""
    return BUILTIN_SYNONYMS.get(catalog_language.split("-")[0].casefold(), {})
