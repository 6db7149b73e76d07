import type { EventType } from '../../../schemas/alarm-explanations.js'

/**
 * The words of a push notification in the member's language (the engine's `humans.language`), for the
 * languages the client ships. The notification is written by the server, while the member's phone may be
 * locked: it cannot be translated on the device. Species names come from the game data, not from here.
 */

export interface PushWords {
  /** `{n}`: whole minutes the event has left. */
  minutesLeft: string
  /** `{boss}`, `{level}`. */
  raid: string
  /** `{level}`. */
  egg: string
  /** The title of an alert without a species of its own, by event type. */
  kinds: Record<Exclude<EventType, 'pokemon' | 'raid'>, string>
  rateLimitedTitle: string
  /** `{max}` notifications in `{minutes}` minutes. */
  rateLimitedBody: string
}

const WORDS: Record<string, PushWords> = {
  en: {
    minutesLeft: '{n} min left',
    raid: '{boss} raid · level {level}',
    egg: 'Level {level} egg',
    kinds: { quest: 'Quest', invasion: 'Team GO Rocket', lure: 'Lure', nest: 'Nest', gym: 'Gym', fort_update: 'Stop or gym changed', max_battle: 'Max Battle' },
    rateLimitedTitle: 'Too many alerts',
    rateLimitedBody: 'More than {max} alerts in {minutes} min: the next ones are not shown until it calms down.'
  },
  de: {
    minutesLeft: 'noch {n} Min.',
    raid: '{boss}-Raid · Level {level}',
    egg: 'Level-{level}-Ei',
    kinds: { quest: 'Quest', invasion: 'Team GO Rocket', lure: 'Lockmodul', nest: 'Nest', gym: 'Arena', fort_update: 'Stopp oder Arena geändert', max_battle: 'Dyna-Kampf' },
    rateLimitedTitle: 'Zu viele Alarme',
    rateLimitedBody: 'Mehr als {max} Alarme in {minutes} Min.: Die nächsten werden erst wieder gezeigt, wenn es ruhiger wird.'
  },
  da: {
    minutesLeft: '{n} min tilbage',
    raid: '{boss}-raid · niveau {level}',
    egg: 'Niveau {level}-æg',
    kinds: { quest: 'Opgave', invasion: 'Team GO Rocket', lure: 'Lokkemodul', nest: 'Rede', gym: 'Gym', fort_update: 'Stop eller gym ændret', max_battle: 'Max-kamp' },
    rateLimitedTitle: 'For mange alarmer',
    rateLimitedBody: 'Mere end {max} alarmer på {minutes} min: de næste vises ikke, før det falder til ro.'
  },
  es: {
    minutesLeft: 'quedan {n} min',
    raid: 'Incursión de {boss} · nivel {level}',
    egg: 'Huevo de nivel {level}',
    kinds: { quest: 'Investigación', invasion: 'Team GO Rocket', lure: 'Módulo cebo', nest: 'Nido', gym: 'Gimnasio', fort_update: 'Parada o gimnasio cambiado', max_battle: 'Combate Max' },
    rateLimitedTitle: 'Demasiadas alertas',
    rateLimitedBody: 'Más de {max} alertas en {minutes} min: las siguientes no se muestran hasta que se calme.'
  },
  fr: {
    minutesLeft: 'encore {n} min',
    raid: 'Raid {boss} · niveau {level}',
    egg: 'Œuf de niveau {level}',
    kinds: { quest: 'Étude', invasion: 'Team GO Rocket', lure: 'Module leurre', nest: 'Nid', gym: 'Arène', fort_update: 'Arrêt ou arène modifié', max_battle: 'Combat Max' },
    rateLimitedTitle: 'Trop d\'alertes',
    rateLimitedBody: 'Plus de {max} alertes en {minutes} min : les suivantes ne s\'affichent plus jusqu\'au retour au calme.'
  },
  it: {
    minutesLeft: 'ancora {n} min',
    raid: 'Raid {boss} · livello {level}',
    egg: 'Uovo di livello {level}',
    kinds: { quest: 'Ricerca', invasion: 'Team GO Rocket', lure: 'Modulo esca', nest: 'Nido', gym: 'Palestra', fort_update: 'PokéStop o palestra cambiati', max_battle: 'Lotta Max' },
    rateLimitedTitle: 'Troppi avvisi',
    rateLimitedBody: 'Più di {max} avvisi in {minutes} min: i prossimi non vengono mostrati finché non si calma.'
  },
  nl: {
    minutesLeft: 'nog {n} min',
    raid: '{boss}-raid · level {level}',
    egg: 'Level {level}-ei',
    kinds: { quest: 'Onderzoek', invasion: 'Team GO Rocket', lure: 'Lokmodule', nest: 'Nest', gym: 'Gym', fort_update: 'Stop of gym gewijzigd', max_battle: 'Max-gevecht' },
    rateLimitedTitle: 'Te veel meldingen',
    rateLimitedBody: 'Meer dan {max} meldingen in {minutes} min: de volgende worden pas weer getoond als het rustiger wordt.'
  },
  pl: {
    minutesLeft: 'zostało {n} min',
    raid: 'Rajd {boss} · poziom {level}',
    egg: 'Jajo poziomu {level}',
    kinds: { quest: 'Zadanie', invasion: 'Team GO Rocket', lure: 'Moduł wabiący', nest: 'Gniazdo', gym: 'Sala', fort_update: 'Zmiana PokéStopu lub sali', max_battle: 'Walka Max' },
    rateLimitedTitle: 'Za dużo alertów',
    rateLimitedBody: 'Ponad {max} alertów w {minutes} min: kolejne nie będą pokazywane, dopóki się nie uspokoi.'
  },
  pt: {
    minutesLeft: 'faltam {n} min',
    raid: 'Raide de {boss} · nível {level}',
    egg: 'Ovo de nível {level}',
    kinds: { quest: 'Pesquisa', invasion: 'Equipa GO Rocket', lure: 'Módulo isca', nest: 'Ninho', gym: 'Ginásio', fort_update: 'Paragem ou ginásio alterado', max_battle: 'Batalha Max' },
    rateLimitedTitle: 'Demasiados alertas',
    rateLimitedBody: 'Mais de {max} alertas em {minutes} min: os seguintes não são mostrados até acalmar.'
  },
  'pt-BR': {
    minutesLeft: 'faltam {n} min',
    raid: 'Reide de {boss} · nível {level}',
    egg: 'Ovo de nível {level}',
    kinds: { quest: 'Pesquisa', invasion: 'Equipe GO Rocket', lure: 'Módulo atrair', nest: 'Ninho', gym: 'Ginásio', fort_update: 'PokéParada ou ginásio alterado', max_battle: 'Batalha Max' },
    rateLimitedTitle: 'Alertas demais',
    rateLimitedBody: 'Mais de {max} alertas em {minutes} min: os próximos não serão mostrados até acalmar.'
  },
  sv: {
    minutesLeft: '{n} min kvar',
    raid: '{boss}-raid · nivå {level}',
    egg: 'Nivå {level}-ägg',
    kinds: { quest: 'Uppdrag', invasion: 'Team GO Rocket', lure: 'Lockbete', nest: 'Bo', gym: 'Gym', fort_update: 'Stopp eller gym ändrat', max_battle: 'Max-strid' },
    rateLimitedTitle: 'För många larm',
    rateLimitedBody: 'Fler än {max} larm på {minutes} min: nästa visas inte förrän det lugnat ner sig.'
  }
}

/** The language's words: the exact code (pt-BR), else its base language (de-AT → de), else English. */
export function pushWordsFor (language: string | null | undefined): { locale: string, words: PushWords } {
  const code = language ?? 'en'
  const locale = WORDS[code] !== undefined ? code : WORDS[code.split('-')[0] ?? ''] !== undefined ? code.split('-')[0] as string : 'en'
  return { locale, words: WORDS[locale] as PushWords }
}

/** `{name}` placeholders filled in. */
export const fill = (text: string, values: Record<string, string | number>): string =>
  text.replace(/\{(\w+)\}/g, (whole, name: string) => (values[name] === undefined ? whole : String(values[name])))
