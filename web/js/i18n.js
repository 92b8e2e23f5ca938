// The one message catalogue of the web client: every word shown to a player comes from here.
// Languages: es (Spanish), en (English), zh (simplified Chinese). The browser's languages choose
// the first one; the choice is kept in localStorage and can be switched at any time.

import { RULES_CATALOGUE } from './i18n-rules.js';

/** @typedef {'es' | 'en' | 'zh'} Lang */

/** @type {Lang[]} */
export const LANGS = ['es', 'en', 'zh'];

/** The name of each language in itself. */
export const LANG_NAMES = { es: 'Español', en: 'English', zh: '中文' };

/**
 * The catalogue: key -> [es, en, zh]. `{name}` marks a parameter. The rules pages' texts live in
 * i18n-rules.js and join it here.
 * @type {Record<string, [string, string, string]>}
 */
const CATALOGUE = {
  ...RULES_CATALOGUE,
  'app.title': ['chuhe · xiangqi', 'chuhe · xiangqi', '楚河 · 象棋'],
  'app.language': ['Idioma', 'Language', '语言'],
  'app.pieces': ['Piezas', 'Pieces', '棋子'],
  'pieces.chinese': ['Caracteres', 'Characters', '汉字'],
  'pieces.western': ['Letras', 'Letters', '字母'],
  'pieces.symbols': ['Símbolos', 'Symbols', '图形'],
  'app.notation': ['Notación', 'Notation', '记谱'],
  'notation.iccs': ['ICCS', 'ICCS', 'ICCS'],
  'notation.wxf': ['WXF', 'WXF', 'WXF'],
  'notation.chinese': ['China', 'Chinese', '中文'],
  'app.lobby': ['Sala', 'Lobby', '大厅'],
  'app.connecting': ['Conectando…', 'Connecting…', '连接中…'],
  'app.reconnecting': ['Conexión perdida, reconectando…', 'Connection lost, reconnecting…', '连接中断，正在重连…'],
  'app.error': ['Error: {message}', 'Error: {message}', '错误：{message}'],
  'session.name': ['Tu nombre', 'Your name', '你的名字'],
  'session.enter': ['Entrar', 'Enter', '进入'],
  'session.hello': ['Hola, {name}', 'Hello, {name}', '你好，{name}'],
  'session.needed': ['Para jugar, entra como invitado o con tu cuenta.', 'To play, enter as a guest or with your account.', '下棋前，请以游客身份进入或登录账号。'],
  'session.guest': ['invitado', 'guest', '游客'],
  'session.logout': ['Salir de la sesión', 'Log out', '退出登录'],
  'session.as_guest': ['Como invitado', 'As a guest', '游客'],
  'session.login_title': ['Con tu cuenta', 'With your account', '已有账号'],
  'session.register_title': ['Cuenta nueva', 'New account', '注册新账号'],
  'session.account_name': ['Nombre de la cuenta', 'Account name', '账号名'],
  'session.password': ['Contraseña', 'Password', '密码'],
  'session.new_password': ['Contraseña (8 caracteres o más)', 'Password (8 characters or more)', '密码（至少8个字符）'],
  'session.login': ['Iniciar sesión', 'Log in', '登录'],
  'session.register': ['Crear cuenta', 'Create account', '注册'],
  'ratings.title': ['Tu puntuación', 'Your ratings', '你的等级分'],
  'ratings.none': ['Aún no has jugado partidas puntuables.', 'No rated games yet.', '还没有计分对局。'],
  'ratings.games': ['{n} partidas', '{n} games', '{n}局'],
  'lobby.tables': ['Mesas abiertas y en juego', 'Open and running tables', '等待中与进行中的棋桌'],
  'lobby.none': ['No hay mesas. ¡Crea una!', 'No tables yet. Create one!', '暂无棋桌，来创建一张吧！'],
  'lobby.create': ['Crear una mesa', 'Create a table', '创建棋桌'],
  'lobby.variant': ['Variante', 'Variant', '玩法'],
  'lobby.time': ['Tiempo', 'Time', '用时'],
  'lobby.minutes': ['Minutos', 'Minutes', '分钟'],
  'lobby.increment': ['Incremento (s)', 'Increment (s)', '每步加秒'],
  'lobby.untimed': ['Sin reloj', 'Untimed', '不计时'],
  'lobby.rated': ['Puntuable', 'Rated', '计分'],
  'lobby.rated_needs_account': ['Las partidas puntuables requieren una cuenta.', 'Rated games need an account.', '计分对局需要注册账号。'],
  'table.rated_badge': ['puntuable', 'rated', '计分'],
  'table.rated_hint': ['Esta partida cuenta para la puntuación.', 'This game counts for the ratings.', '本局计入等级分。'],
  'table.rated_guest': ['Mesa puntuable: para sentarte necesitas una cuenta.', 'Rated table: you need an account to sit.', '计分桌：需要账号才能入座。'],
  'table.not_found': ['Esta mesa no existe.', 'This table does not exist.', '此棋桌不存在。'],
  'table.back_to_lobby': ['Volver a la sala', 'Back to the lobby', '返回大厅'],
  'lobby.no_capture_limit': ['Límite sin capturas (jugadas)', 'No-capture limit (plies)', '无吃子限着（步）'],
  'lobby.flag_bearers': ['Abanderados', 'Flag bearers', '旗手'],
  'lobby.seats': ['Asientos', 'Seats', '座位'],
  'lobby.phase': ['Estado', 'State', '状态'],
  'lobby.open_table': ['Entrar', 'Join', '加入'],
  'lobby.watch': ['Mirar', 'Watch', '观战'],
  'lobby.create_button': ['Crear', 'Create', '创建'],
  'lobby.empty_seat': ['libre', 'free', '空位'],
  'lobby.finished': ['Partidas terminadas', 'Finished games', '已结束的对局'],
  'lobby.no_finished': ['Todavía no ha terminado ninguna partida.', 'No game has finished yet.', '还没有结束的对局。'],
  'lobby.date': ['Fecha', 'Date', '日期'],
  'lobby.players': ['Jugadores', 'Players', '棋手'],
  'lobby.result': ['Resultado', 'Result', '结果'],
  'lobby.moves': ['Jugadas', 'Moves', '步数'],
  'lobby.review': ['Ver', 'Review', '复盘'],
  'lobby.newer': ['Más recientes', 'Newer', '较新'],
  'lobby.older': ['Más antiguas', 'Older', '较早'],
  'lobby.page': ['Página {n}', 'Page {n}', '第{n}页'],
  'phase.open': ['abierta', 'open', '等待中'],
  'phase.running': ['en juego', 'running', '对局中'],
  'phase.ended': ['terminada', 'ended', '已结束'],
  'variant.xiangqi': ['Xiangqi', 'Xiangqi', '象棋'],
  'variant.sanguo': ['Xiangqi de los Tres Reinos', 'Three Kingdoms xiangqi', '三国象棋'],
  'variant.banqi': ['Banqi (ajedrez oscuro)', 'Banqi (dark chess)', '暗棋'],
  'seat.xiangqi.0': ['Rojo', 'Red', '红方'],
  'seat.xiangqi.1': ['Negro', 'Black', '黑方'],
  'seat.banqi.0': ['Primer asiento', 'First seat', '先手'],
  'seat.banqi.1': ['Segundo asiento', 'Second seat', '后手'],
  'seat.sanguo.0': ['Shu', 'Shu', '蜀'],
  'seat.sanguo.1': ['Wu', 'Wu', '吴'],
  'seat.sanguo.2': ['Wei', 'Wei', '魏'],
  'color.red': ['Rojo', 'Red', '红方'],
  'color.black': ['Negro', 'Black', '黑方'],
  'winner.red': ['Rojo', 'Red', '红方'],
  'winner.black': ['Negro', 'Black', '黑方'],
  'winner.shu': ['Shu', 'Shu', '蜀'],
  'winner.wu': ['Wu', 'Wu', '吴'],
  'winner.wei': ['Wei', 'Wei', '魏'],
  'table.sit': ['Sentarse', 'Sit here', '入座'],
  'table.stand': ['Levantarse', 'Stand up', '离座'],
  'table.computer': ['Añadir ordenador', 'Add computer', '添加电脑'],
  'table.level': ['Nivel', 'Level', '等级'],
  'table.computer_name': ['Ordenador (nivel {level})', 'Computer (level {level})', '电脑（{level}级）'],
  'table.start': ['Empezar', 'Start', '开始'],
  'table.abort': ['Anular', 'Abort', '取消对局'],
  'table.resign': ['Abandonar', 'Resign', '认输'],
  'table.offer_draw': ['Ofrecer tablas', 'Offer a draw', '提和'],
  'table.accept_draw': ['Aceptar tablas', 'Accept the draw', '同意和棋'],
  'table.decline_draw': ['Rechazar', 'Decline', '拒绝'],
  'table.draw_offered': ['{seat} ofrece tablas', '{seat} offers a draw', '{seat}提和'],
  'table.leave': ['Salir', 'Leave', '离开'],
  'table.pgn': ['Descargar PGN', 'Download PGN', '下载棋谱'],
  'table.moves': ['Jugadas', 'Moves', '着法'],
  'table.to_move': ['Juega {seat}', '{seat} to move', '轮到{seat}走棋'],
  'table.moving': ['juega', 'to move', '走棋'],
  'table.your_turn': ['Te toca', 'Your turn', '轮到你了'],
  'table.you': ['tú', 'you', '你'],
  'table.spectator': ['Estás mirando', 'You are watching', '你在观战'],
  'table.waiting': ['Esperando jugadores', 'Waiting for players', '等待玩家'],
  'table.ready': ['Todos sentados: pulsa Empezar', 'Everyone is seated: press Start', '已坐满，请点“开始”'],
  'table.offline': ['desconectado', 'offline', '离线'],
  'replay.first': ['Posición inicial', 'Start position', '开局'],
  'replay.prev': ['Jugada anterior', 'Previous move', '上一步'],
  'replay.next': ['Jugada siguiente', 'Next move', '下一步'],
  'replay.last': ['Posición final', 'Final position', '终局'],
  'replay.start': ['Posición inicial', 'Start position', '开局'],
  'replay.ply': ['Jugada {ply} de {plies}', 'Move {ply} of {plies}', '第{ply}步，共{plies}步'],
  'banqi.lost_red': ['Rojo ha perdido', 'Red has lost', '红方被吃'],
  'banqi.lost_black': ['Negro ha perdido', 'Black has lost', '黑方被吃'],
  'banqi.none_lost': ['nada todavía', 'nothing yet', '暂无'],
  'table.confirm_resign': ['¿Seguro que abandonas?', 'Resign for sure?', '确定认输吗？'],
  'result.draw': ['Tablas', 'Draw', '和棋'],
  'result.wins': ['Gana {who}', '{who} wins', '{who}胜'],
  'result.win_both': ['Ganan {who}', '{who} win', '{who}胜'],
  'result.aborted': ['Partida anulada', 'Game aborted', '对局已取消'],
  'result.and': [' y ', ' and ', '和'],
  'reason.checkmate': ['por jaque mate', 'by checkmate', '将死'],
  'reason.stalemate': ['por ahogado (sin jugadas)', 'by stalemate (no move)', '困毙'],
  'reason.no-legal-move': ['porque el rival no tiene jugadas', 'as the opponent has no legal move', '对方无子可走'],
  'reason.general-captured': ['por captura del general', 'by capture of the general', '吃掉将帅'],
  'reason.all-captured': ['por captura de todas las piezas', 'by capture of every piece', '吃光所有棋子'],
  'reason.perpetual-check': ['por jaque perpetuo', 'by perpetual check', '长将判负'],
  'reason.perpetual-chase': ['por persecución perpetua', 'by perpetual chase', '长捉判负'],
  'reason.threefold-repetition': ['por triple repetición', 'by threefold repetition', '三次重复局面'],
  'reason.no-capture-limit': ['por el límite de jugadas sin captura', 'by the no-capture move limit', '无吃子步数达限'],
  'reason.no-flip-no-capture-limit': ['por el límite sin volteo ni captura', 'by the no-flip, no-capture limit', '无翻子无吃子步数达限'],
  'reason.resignation': ['por abandono', 'by resignation', '认输'],
  'reason.timeout': ['por tiempo', 'on time', '超时'],
  'reason.abandonment': ['porque el rival se fue', 'as the opponent left', '对方离开'],
  'reason.agreement': ['de mutuo acuerdo', 'by agreement', '双方议和'],
  'reason.aborted': ['antes de la primera jugada', 'before the first move', '首步之前'],
  'error.conflict': ['Ese asiento o nombre ya está ocupado', 'That seat or name is taken', '该座位或名字已被占用'],
  'error.name_taken': ['Ese nombre de cuenta ya existe', 'That account name is taken', '该账号名已被占用'],
  'error.wrong_password': ['Nombre o contraseña incorrectos', 'Wrong name or password', '账号名或密码错误'],
  'error.not_your_turn': ['No es tu turno', 'Not your turn', '还没轮到你'],
  'error.not_ready': ['Falta un jugador: alguien sentado no está conectado', 'A seated player is not connected', '有已入座的玩家未连接'],
  'error.rate_limited': ['Demasiadas peticiones seguidas; prueba de nuevo en {seconds} s', 'Too many requests in a row; try again in {seconds} s', '请求过于频繁，请在 {seconds} 秒后重试'],
  'error.generic': ['No se pudo: {message}', 'Could not do it: {message}', '操作失败：{message}'],
};

const STORAGE_KEY = 'chuhe.lang';

/**
 * The language the browser prefers among ours (a saved choice first, then navigator.languages).
 * @param {readonly string[]} preferred the browser's languages, best first
 * @param {string | null} saved a saved choice
 * @returns {Lang}
 */
export function chooseLang(preferred, saved) {
  if (saved === 'es' || saved === 'en' || saved === 'zh') return saved;
  for (const tag of preferred) {
    const base = tag.toLowerCase().split('-')[0];
    if (base === 'es' || base === 'en' || base === 'zh') return base;
  }
  return 'es';
}

/** @type {Lang} */
let current = 'es';

/** @returns {Lang} */
export function lang() {
  return current;
}

/**
 * Switches the language (and saves it when storage exists).
 * @param {Lang} l
 */
export function setLang(l) {
  current = l;
  try {
    globalThis.localStorage?.setItem(STORAGE_KEY, l);
  } catch {
    // storage may be disabled: the choice lasts for the page only
  }
}

/** Sets the language from the saved choice and the browser's languages. */
export function initLang() {
  /** @type {string | null} */
  let saved = null;
  try {
    saved = globalThis.localStorage?.getItem(STORAGE_KEY) ?? null;
  } catch {
    saved = null;
  }
  const nav = globalThis.navigator;
  current = chooseLang(nav ? nav.languages ?? [nav.language] : [], saved);
}

/** Every key of the catalogue (for tests). */
export function keys() {
  return Object.keys(CATALOGUE);
}

/**
 * The text of `key` in the current language (or `l`), parameters filled in.
 * An unknown key shows itself, so a missing entry is visible and found by the tests.
 * @param {string} key
 * @param {Record<string, string | number>} [params]
 * @param {Lang} [l]
 * @returns {string}
 */
export function t(key, params = {}, l = current) {
  const entry = CATALOGUE[key];
  if (!entry) return key;
  const text = entry[LANGS.indexOf(l)];
  return text.replace(/\{(\w+)\}/g, (_, name) => String(params[name] ?? `{${name}}`));
}
