"""The toy language's lexicon, as word lists: nouns, professions, adjectives, verbs and subject
pronouns, English beside French (lexicon.py reads them)."""

# Noun classes: p person, a animal, t thing, x text (readable), o openable,
# l place, w writable, f food, d drink.  A noun may have several classes.

# english singular, english plural, french singular, french plural, gender, classes
NOUNS_TEXT = """
boy boys garçon garçons m p
man men homme hommes m p
student students étudiant étudiants m p
girl girls fille filles f p
woman women femme femmes f p
brother brothers frère frères m p
sister sisters sœur sœurs f p
king kings roi rois m p
queen queens reine reines f p
father fathers père pères m p
mother mothers mère mères f p
uncle uncles oncle oncles m p
aunt aunts tante tantes f p
baby babies bébé bébés m p
cat cats chat chats m a
dog dogs chien chiens m a
bird birds oiseau oiseaux m a
fish fish poisson poissons m a
horse horses cheval chevaux m a
mouse mice souris souris f a
cow cows vache vaches f a
duck ducks canard canards m a
rabbit rabbits lapin lapins m a
elephant elephants éléphant éléphants m a
owl owls hibou hiboux m a
bee bees abeille abeilles f a
spider spiders araignée araignées f a
bear bears ours ours m a
donkey donkeys âne ânes m a
squirrel squirrels écureuil écureuils m a
goat goats chèvre chèvres f a
frog frogs grenouille grenouilles f a
wolf wolves loup loups m a
lion lions lion lions m a
pig pigs cochon cochons m a
hen hens poule poules f a
book books livre livres m t,x,o,w
letter letters lettre lettres f t,x,o,w
newspaper newspapers journal journaux m t,x,o
magazine magazines magazine magazines m t,x,o
map maps carte cartes f t,x
house houses maison maisons f t,l
car cars voiture voitures f t,o
table tables table tables f t
chair chairs chaise chaises f t
door doors porte portes f t,o
window windows fenêtre fenêtres f t,o
bag bags sac sacs m t,o
hat hats chapeau chapeaux m t
ball balls ballon ballons m t
key keys clé clés f t
pen pens stylo stylos m t
cup cups tasse tasses f t
box boxes boîte boîtes f t,o
bed beds lit lits m t
shoe shoes chaussure chaussures f t
flower flowers fleur fleurs f t
tree trees arbre arbres m t
bike bikes vélo vélos m t
boat boats bateau bateaux m t
train trains train trains m t
plane planes avion avions m t
computer computers ordinateur ordinateurs m t,o
phone phones téléphone téléphones m t
clock clocks horloge horloges f t
hotel hotels hôtel hôtels m t,l
hospital hospitals hôpital hôpitaux m t,l
school schools école écoles f t,l
church churches église églises f t,l
garden gardens jardin jardins m t,l
picture pictures image images f t
plate plates assiette assiettes f t
wardrobe wardrobes armoire armoires f t,o
umbrella umbrellas parapluie parapluies m t,o
shirt shirts chemise chemises f t
dress dresses robe robes f t
coat coats manteau manteaux m t
lamp lamps lampe lampes f t
bottle bottles bouteille bouteilles f t,o
glass glasses verre verres m t
knife knives couteau couteaux m t
apple apples pomme pommes f f
cake cakes gâteau gâteaux m f
egg eggs œuf œufs m f
orange oranges orange oranges f f
banana bananas banane bananes f f
pear pears poire poires f f
carrot carrots carotte carottes f f
lemon lemons citron citrons m f
tomato tomatoes tomate tomates f f
sandwich sandwiches sandwich sandwichs m f
strawberry strawberries fraise fraises f f
coffee - café - m d
tea - thé - m d
juice - jus - m d
"""

# Nouns whose English plural equals the singular: never used as a plural object
# (`I see the fish` would be ambiguous); as a subject the verb disambiguates.
# Nouns marked '-' in the plural columns are singular only.

# Professions for `SUBJECT be a NOUN`: english sg, english pl, fr m sg, fr f sg,
# fr m pl, fr f pl.  French drops the article after être.
PROFESSIONS_TEXT = """
student students étudiant étudiante étudiants étudiantes
teacher teachers enseignant enseignante enseignants enseignantes
singer singers chanteur chanteuse chanteurs chanteuses
dancer dancers danseur danseuse danseurs danseuses
baker bakers boulanger boulangère boulangers boulangères
cook cooks cuisinier cuisinière cuisiniers cuisinières
lawyer lawyers avocat avocate avocats avocates
nurse nurses infirmier infirmière infirmiers infirmières
farmer farmers agriculteur agricultrice agriculteurs agricultrices
doctor doctors médecin médecin médecins médecins
painter painters peintre peintre peintres peintres
journalist journalists journaliste journaliste journalistes journalistes
architect architects architecte architecte architectes architectes
pilot pilots pilote pilote pilotes pilotes
"""

# Adjectives: english, position (pre|post), classes they may describe,
# fr m sg, f sg, m pl, f pl [, m sg before a vowel].
ADJECTIVES_TEXT = """
small pre p,a,t,f,d petit petite petits petites
big pre p,a,t,f grand grande grands grandes
young pre p,a jeune jeune jeunes jeunes
old pre p,a,t vieux vieille vieux vieilles vieil
beautiful pre p,a,t beau belle beaux belles bel
new pre t nouveau nouvelle nouveaux nouvelles nouvel
good pre f,x bon bonne bons bonnes
bad pre f,x mauvais mauvaise mauvais mauvaises
pretty pre p,a,t joli jolie jolis jolies
long pre t,x long longue longs longues
black post a,t,d noir noire noirs noires
red post a,t,f rouge rouge rouges rouges
green post a,t,f,d vert verte verts vertes
white post a,t blanc blanche blancs blanches
happy post p,a heureux heureuse heureux heureuses
blue post a,t bleu bleue bleus bleues
yellow post a,t,f jaune jaune jaunes jaunes
grey post a,t gris grise gris grises
brown post a brun brune bruns brunes
pink post t rose rose roses roses
sad post p,a triste triste tristes tristes
tired post p,a fatigué fatiguée fatigués fatiguées
sick post p,a malade malade malades malades
rich post p riche riche riches riches
poor post p pauvre pauvre pauvres pauvres
lazy post p,a paresseux paresseuse paresseux paresseuses
clever post p,a intelligent intelligente intelligents intelligentes
polite post p poli polie polis polies
famous post p célèbre célèbre célèbres célèbres
strong post p,a fort forte forts fortes
clean post t propre propre propres propres
dirty post t,a sale sale sales sales
heavy post t lourd lourde lourds lourdes
empty post t vide vide vides vides
round post t,f rond ronde ronds rondes
ripe post f mûr mûre mûrs mûres
cold post f,d froid froide froids froides
hot post f,d chaud chaude chauds chaudes
"""

# Verbs: english base | english 3sg | french je, il, nous, ils | object classes |
# subject classes | flags.  Flag 'def': only definite objects (aimer, préférer).
VERBS_TEXT = """
see|sees|vois voit voyons voient|p,a,t,f,d|p,a|
eat|eats|mange mange mangeons mangent|f|p,a|
like|likes|aime aime aimons aiment|p,a,t,f,d|p,a|def
read|reads|lis lit lisons lisent|x|p|
have|has|ai a avons ont|a,t,f,d|p,a|
watch|watches|regarde regarde regardons regardent|p,a,t|p,a|
find|finds|trouve trouve trouvons trouvent|p,a,t,f|p,a|
carry|carries|porte porte portons portent|a,t,f,d|p,a|
buy|buys|achète achète achetons achètent|a,t,f,d|p|
draw|draws|dessine dessine dessinons dessinent|p,a,t,f|p|
wash|washes|lave lave lavons lavent|p,a,t|p|
hear|hears|entends entend entendons entendent|p,a|p,a|
follow|follows|suis suit suivons suivent|p,a|p,a|
take|takes|prends prend prenons prennent|t,f,d|p|
sell|sells|vends vend vendons vendent|a,t,f,d|p|
know|knows|connais connaît connaissons connaissent|p,a|p,a|
write|writes|écris écrit écrivons écrivent|w|p|
open|opens|ouvre ouvre ouvrons ouvrent|o|p|
close|closes|ferme ferme fermons ferment|o|p|
hold|holds|tiens tient tenons tiennent|a,t,f,d|p|
drink|drinks|bois boit buvons boivent|d|p|
help|helps|aide aide aidons aident|p,a|p,a|
call|calls|appelle appelle appelons appellent|p,a|p|
choose|chooses|choisis choisit choisissons choisissent|a,t,f,d|p|
push|pushes|pousse pousse poussons poussent|p,a,t|p,a|
touch|touches|touche touche touchons touchent|p,a,t,f|p,a|
clean|cleans|nettoie nettoie nettoyons nettoient|t|p|
paint|paints|peins peint peignons peignent|t|p|
lose|loses|perds perd perdons perdent|a,t|p,a|
send|sends|envoie envoie envoyons envoient|x,t,f|p|
prefer|prefers|préfère préfère préférons préfèrent|p,a,t,f,d|p,a|def
want|wants|veux veut voulons veulent|a,t,f,d|p,a|
look for|looks for|cherche cherche cherchons cherchent|p,a,t,f|p,a|
wait for|waits for|attends attend attendons attendent|p,a|p,a|
listen to|listens to|écoute écoute écoutons écoutent|p,a|p,a|
catch|catches|attrape attrape attrapons attrapent|a|p,a|
visit|visits|visite visite visitons visitent|l|p|
build|builds|construis construit construisons construisent|l|p|
feed|feeds|nourris nourrit nourrissons nourrissent|a|p|
repair|repairs|répare répare réparons réparent|t|p|
bring|brings|apporte apporte apportons apportent|t,f,d,x|p,a|
"""

# Subject pronouns: english, person index (0 je, 1 il/elle, 2 nous, 3 ils), french,
# gender used for agreement (je and nous take the masculine).
PRONOUNS = [
    ("I", 0, "je", "m"),
    ("he", 1, "il", "m"),
    ("she", 1, "elle", "f"),
    ("we", 2, "nous", "m"),
    ("they", 3, "ils", "m"),
]
