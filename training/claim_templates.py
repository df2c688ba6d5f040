"""Templated contexts in several domains, English and Italian (training/make_claim_data.py).

Each template is a function ``rng -> list of sentences`` filling its slots at random, so the
numbers, dates and names vary. Italian numbers use the decimal comma, "mila" and "miliardi".
"""
from __future__ import annotations

import random

FIRST = ["Anna", "Marco", "Laura", "David", "Sofia", "James", "Elena", "Peter", "Giulia", "Thomas", "Clara",
         "Luca", "Maria", "Robert", "Chiara", "Henrik", "Ingrid", "Paolo", "Sarah", "Omar"]
LAST = ["Rossi", "Bianchi", "Keller", "Moreau", "Larsen", "Conti", "Fischer", "Novak", "Ricci", "Walsh",
        "Berg", "Greco", "Hughes", "Marino", "Dubois", "Costa", "Lindqvist", "Ferrari", "Byrne", "Sato"]
COMPANY = ["Veltra", "Nordhavn", "Alpinex", "Corvo", "Brightline", "Solvera", "Marbel", "Tessaro", "Quillon",
           "Ostrava Labs", "Fenwick", "Aurelia"]
CITY = ["Milan", "Turin", "Oslo", "Lyon", "Bergen", "Naples", "Porto", "Ghent", "Graz", "Bologna", "Cork"]
CITTA = ["Milano", "Torino", "Napoli", "Bologna", "Firenze", "Genova", "Verona", "Padova", "Bari", "Trieste"]
MESI = ["gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "settembre", "ottobre", "novembre"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "September", "October", "November"]


def person(r: random.Random) -> str:
    return f"{r.choice(FIRST)} {r.choice(LAST)}"


def it_num(v: float, decimals: int = 1) -> str:
    return f"{v:.{decimals}f}".replace(".", ",")


def en_finance(r):
    c, y = r.choice(COMPANY), r.randint(2015, 2024)
    rev, g, m = r.randint(12, 95) / 10, r.randint(2, 19), r.randint(8, 31)
    return [f"{c} reported revenue of ${rev} billion for fiscal {y}, up {g}% from the previous year.",
            f"Operating margin rose to {m}% as costs for raw materials fell.",
            f"The board, chaired by {person(r)}, approved a dividend of {r.randint(11, 95)} cents per share.",
            f"The company expects capital expenditures of no more than ${r.randint(50, 400)} million in {y + 1}.",
            f"Net debt was reduced by {r.randint(5, 40)}% after the sale of the {r.choice(CITY)} plant."]


def en_clinical(r):
    d = r.choice([250, 500, 750, 1000])
    return [
        f"The recommended adult dose is {d} mg every {r.choice([6, 8, 12])} hours.",
        f"Patients should not take more than {d * 4} mg in 24 hours.",
        f"In the trial led by Dr. {r.choice(LAST)}, {r.randint(120, 900)} patients were followed for "
        f"{r.randint(6, 36)} months.",
        f"The most common side effect was nausea, reported by {r.randint(3, 25)}% of patients.",
        "The drug is not recommended for children under 12 years of age.",
        f"It was approved by the regulator in {r.choice(MONTHS)} {r.randint(2010, 2023)}.",
    ]


def en_product(r):
    w = r.randint(11, 39) / 10
    return [f"The {r.choice(COMPANY)} X{r.randint(2, 9)} weighs {w} kg and folds to {r.randint(30, 60)} cm.",
            f"The battery lasts up to {r.randint(6, 40)} hours on a single charge.",
            f"Charging from empty takes about {r.randint(60, 180)} minutes with the supplied adapter.",
            f"The warranty covers manufacturing defects for {r.randint(1, 5)} years but excludes water damage.",
            "Firmware updates are installed automatically when the device is connected to Wi-Fi.",
            f"Returns are accepted within {r.choice([14, 30, 60])} days of delivery."]


def en_history(r):
    y = r.randint(1450, 1900)
    a, b = person(r), person(r)
    return [f"The town of {r.choice(CITY)}burg was founded in {y} by {a}.",
            f"In {y + r.randint(10, 60)}, a fire destroyed most of the old harbour.",
            f"{a} was succeeded as mayor by {b}, who rebuilt the market hall.",
            f"The population grew from {r.randint(2, 9)},000 to {r.randint(12, 40)},000 during the following century.",
            f"The railway reached the town before the first bridge was built in {y + r.randint(70, 120)}."]


def en_science(r):
    return [f"The enzyme works best at {r.randint(25, 45)} degrees Celsius and a pH of {r.randint(5, 8)}.",
            f"Researchers at the University of {r.choice(CITY)} measured a {r.randint(10, 60)}% increase in yield.",
            f"The effect was first described by {person(r)} in {r.randint(1950, 2015)}.",
            "Higher temperatures reduced the reaction rate, while light had no measurable effect.",
            f"Each sample was heated for {r.randint(5, 50)} minutes before analysis."]


def en_sports(r):
    a, b = r.choice(CITY), r.choice(CITY)
    return [f"{a} beat {b} {r.randint(2, 5)}-{r.randint(0, 1)} in the final on {r.randint(1, 28)} {r.choice(MONTHS)}.",
            f"{person(r)} scored twice in the first half.",
            f"It was the club's {r.choice(['first', 'second', 'third'])} title in {r.randint(10, 40)} years.",
            f"The match was watched by {r.randint(20, 80)},000 spectators.",
            f"The coach, {person(r)}, had joined the club only {r.randint(3, 11)} months earlier."]


def en_legal(r):
    return [f"The tenant must give at least {r.choice([1, 2, 3])} months' written notice before leaving.",
            f"The deposit may not exceed {r.choice([2, 3])} months of rent.",
            f"Late payments incur interest of {r.randint(2, 9)}% per year.",
            "Subletting is prohibited without the landlord's prior written consent.",
            f"The agreement is governed by the law of {r.choice(['England', 'Ireland', 'Norway', 'Italy'])}.",
            f"Disputes are referred to the court of {r.choice(CITY)}."]


def en_policy(r):
    return [f"Full-time employees receive {r.randint(20, 30)} working days of paid leave per year.",
            f"Up to {r.randint(3, 10)} unused days may be carried over to the next year.",
            f"Requests must be submitted at least {r.randint(5, 15)} working days in advance.",
            f"Meals are reimbursed up to {r.randint(30, 80)} EUR per day on business trips.",
            "Receipts are required for every expense above 25 EUR.",
            f"The policy was last updated on {r.randint(1, 28)} {r.choice(MONTHS)} {r.randint(2019, 2025)}."]


def en_travel(r):
    return [f"The museum opens at {r.randint(8, 10)} am and closes at {r.randint(5, 7)} pm.",
            f"Tickets cost {r.randint(8, 25)} euros for adults and are free for children under {r.randint(6, 14)}.",
            f"The collection includes more than {r.randint(2, 9)},000 paintings.",
            f"The building was designed by {person(r)} and completed in {r.randint(1880, 1990)}.",
            "Guided tours are available in English and Italian."]


def it_finance(r):
    c, y = r.choice(COMPANY), r.randint(2015, 2024)
    return [
        f"{c} ha registrato ricavi per {it_num(r.randint(12, 95) / 10)} miliardi di euro nel {y}, in aumento del "
        f"{r.randint(2, 19)}% rispetto all'anno precedente.",
        f"L'utile netto è stato di {r.randint(120, 900)} milioni di euro.",
        f"Il consiglio di amministrazione, presieduto da {person(r)}, ha approvato un dividendo di "
        f"{it_num(r.randint(11, 95) / 100, 2)} euro per azione.",
        f"Il debito netto è sceso a {r.randint(1, 9)}.{r.randint(100, 999)} milioni di euro.",
        f"La società prevede di assumere {r.randint(2, 40)} mila nuovi dipendenti entro il {y + 2}.",
    ]


def it_clinical(r):
    d = r.choice([250, 500, 1000])
    return [f"La dose raccomandata per gli adulti è di {d} mg ogni {r.choice([6, 8, 12])} ore.",
            f"Non si devono superare i {d * 3} mg nelle 24 ore.",
            f"Lo studio, coordinato dalla dottoressa {r.choice(LAST)}, ha coinvolto {r.randint(120, 900)} pazienti.",
            f"L'effetto collaterale più frequente è stata la nausea, nel {it_num(r.randint(30, 250) / 10)}% dei casi.",
            "Il farmaco non è indicato nei bambini sotto i 12 anni.",
            f"È stato approvato il {r.randint(1, 28)} {r.choice(MESI)} {r.randint(2010, 2023)}."]


def it_product(r):
    return [
        f"Lo zaino {r.choice(COMPANY)} pesa {it_num(r.randint(8, 25) / 10)} kg e ha una capacità di "
        f"{r.randint(20, 60)} litri.",
        f"La batteria dura fino a {r.randint(6, 40)} ore con una sola carica.",
        f"La garanzia copre i difetti di fabbricazione per {r.randint(1, 5)} anni, ma esclude i danni da acqua.",
        f"Il reso è gratuito entro {r.choice([14, 30])} giorni dalla consegna.",
        f"Il prodotto costa {r.randint(49, 299)},{r.choice(['00', '90', '99'])} euro IVA inclusa.",
    ]


def it_history(r):
    y = r.randint(1300, 1900)
    a, b = person(r), person(r)
    return [
        f"La città di {r.choice(CITTA)} fu conquistata nel {y} dalle truppe guidate da {a}.",
        f"Nel {y + r.randint(10, 60)} un incendio distrusse gran parte del porto.",
        f"{a} fu sostituito come governatore da {b}, che fece ricostruire il mercato.",
        f"La popolazione passò da {r.randint(2, 9)} mila a {r.randint(12, 40)} mila abitanti nel secolo successivo.",
        "La ferrovia arrivò in città prima della costruzione del primo ponte.",
    ]


def it_sports(r):
    a, b = r.choice(CITTA), r.choice(CITTA)
    return [
        f"Il {a} ha battuto il {b} per {r.randint(2, 5)} a {r.randint(0, 1)} nella finale del {r.randint(1, 28)} "
        f"{r.choice(MESI)}.",
        f"{person(r)} ha segnato due gol nel primo tempo.",
        f"È il primo titolo della squadra dopo {r.randint(10, 40)} anni.",
        f"La partita è stata seguita da {r.randint(20, 80)} mila spettatori.",
        f"L'allenatore {person(r)} era arrivato solo {r.randint(3, 11)} mesi prima.",
    ]


def it_legal(r):
    return [f"L'inquilino deve dare un preavviso scritto di almeno {r.choice([3, 6])} mesi.",
            f"Il deposito cauzionale non può superare {r.choice([2, 3])} mensilità del canone.",
            f"Gli interessi di mora sono pari al {it_num(r.randint(5, 90) / 10)}% all'anno.",
            "La sublocazione è vietata senza il consenso scritto del proprietario.",
            f"Per le controversie è competente il tribunale di {r.choice(CITTA)}."]


def it_policy(r):
    return [f"I dipendenti a tempo pieno hanno diritto a {r.randint(20, 30)} giorni di ferie retribuite all'anno.",
            f"Fino a {r.randint(3, 10)} giorni non goduti possono essere riportati all'anno successivo.",
            f"Le richieste vanno presentate almeno {r.randint(5, 15)} giorni lavorativi prima.",
            f"I pasti sono rimborsati fino a {r.randint(30, 80)} euro al giorno durante le trasferte.",
            "La ricevuta è obbligatoria per ogni spesa superiore a 25 euro.",
            f"Il regolamento è stato aggiornato il {r.randint(1, 28)} {r.choice(MESI)} {r.randint(2019, 2025)}."]


def it_science(r):
    return [
        f"L'enzima lavora meglio a {r.randint(25, 45)} gradi e a un pH di {it_num(r.randint(50, 80) / 10)}.",
        f"I ricercatori dell'Università di {r.choice(CITTA)} hanno misurato un aumento della resa del "
        f"{r.randint(10, 60)}%.",
        f"L'effetto fu descritto per la prima volta da {person(r)} nel {r.randint(1950, 2015)}.",
        "Le temperature più alte hanno ridotto la velocità della reazione.",
        f"Ogni campione è stato riscaldato per {r.randint(5, 50)} minuti prima dell'analisi.",
    ]


#: order matters: indices 0-5 train, 6 dev, 7 and up test (training/make_claim_data.py)
TEMPLATES = {
    "en": [en_finance, en_product, en_history, en_sports, en_policy, en_travel, en_science, en_clinical, en_legal],
    "it": [it_finance, it_product, it_history, it_sports, it_policy, it_science, it_legal, it_clinical],
}
