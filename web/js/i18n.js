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
  'app.board': ['Tablero', 'Board', '棋盘'],
  'board.wood': ['Madera', 'Wood', '木纹'],
  'board.light': ['Claro', 'Light', '浅色'],
  'board.dark': ['Oscuro', 'Dark', '深色'],
  'pieces.chinese': ['Caracteres', 'Characters', '汉字'],
  'pieces.western': ['Letras', 'Letters', '字母'],
  'pieces.symbols': ['Símbolos', 'Symbols', '图形'],
  'app.notation': ['Notación', 'Notation', '记谱'],
  'notation.iccs': ['ICCS', 'ICCS', 'ICCS'],
  'notation.wxf': ['WXF', 'WXF', 'WXF'],
  'notation.chinese': ['China', 'Chinese', '中文'],
  'app.sound_on': ['Sonido activado (pulsa para silenciar)', 'Sound on (click to mute)', '声音已开（点击静音）'],
  'app.sound_off': ['Sonido desactivado (pulsa para activarlo)', 'Sound off (click to turn on)', '已静音（点击开启声音）'],
  'app.lobby': ['Sala', 'Lobby', '大厅'],
  'app.connecting': ['Conectando…', 'Connecting…', '连接中…'],
  'app.reconnecting': ['Conexión perdida, reconectando…', 'Connection lost, reconnecting…', '连接中断，正在重连…'],
  'app.error': ['Error: {message}', 'Error: {message}', '错误：{message}'],
  'session.name': ['Tu nombre', 'Your name', '你的名字'],
  'session.enter': ['Entrar', 'Enter', '进入'],
  'session.hello': ['Hola, {name}', 'Hello, {name}', '你好，{name}'],
  'session.needed': ['Para jugar, entra como invitado o con tu cuenta.', 'To play, enter as a guest or with your account.', '下棋前，请以游客身份进入或登录账号。'],
  'session.guest': ['invitado', 'guest', '游客'],
  'session.bot_hint': ['Una cuenta de programa (bot) que juega por la API', 'A program (bot) account that plays through the API', '通过 API 下棋的程序（机器人）账号'],
  'session.guest_hint': ['Invitado, sin cuenta: no es la cuenta del mismo nombre', 'A guest, without an account: not the account of the same name', '游客，没有账号：不是同名的账号'],
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
  'lobby.your_seat': ['Tu lado', 'Your side', '你执'],
  'lobby.seat_random': ['Al azar', 'Random', '随机'],
  'lobby.empty_seat': ['libre', 'free', '空位'],
  'lobby.finished': ['Partidas terminadas', 'Finished games', '已结束的对局'],
  'lobby.no_finished': ['Todavía no ha terminado ninguna partida.', 'No game has finished yet.', '还没有结束的对局。'],
  'player.ratings': ['Puntuación', 'Ratings', '等级分'],
  'player.no_ratings': ['Sin partidas puntuables.', 'No rated games.', '没有计分对局。'],
  'player.games': ['Partidas', 'Games', '对局'],
  'player.no_games': ['Ninguna partida terminada.', 'No finished game.', '没有结束的对局。'],
  'player.all': ['Todas', 'All', '全部'],
  'player.filter': ['Variante', 'Variant', '变体'],
  'player.unknown': ['Jugador', 'Player', '棋手'],
  'player.to_lobby': ['Volver a la sala', 'Back to the lobby', '返回大厅'],
  'player.my_page': ['Mis partidas', 'My games', '我的对局'],
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
  'table.invite': ['Invita a un amigo con este enlace: la partida empieza cuando se ocupen los asientos', 'Invite a friend with this link: the game starts when the seats are taken', '把这个链接发给朋友：坐满即开始对局'],
  'table.invite_copy': ['Copiar enlace', 'Copy link', '复制链接'],
  'table.invite_copied': ['Enlace copiado', 'Link copied', '链接已复制'],
  'table.invite_share': ['Compartir', 'Share', '分享'],
  'table.invite_title': ['Juega conmigo en chuhe', 'Play with me on chuhe', '来楚河和我下棋'],
  'table.abort': ['Anular', 'Abort', '取消对局'],
  'table.resign': ['Rendirse', 'Resign', '认输'],
  'table.offer_draw': ['Ofrecer tablas', 'Offer a draw', '提和'],
  'table.accept_draw': ['Aceptar tablas', 'Accept the draw', '同意和棋'],
  'table.decline_draw': ['Rechazar', 'Decline', '拒绝'],
  'table.draw_offered': ['{seat} ofrece tablas', '{seat} offers a draw', '{seat}提和'],
  'table.leave': ['Salir', 'Leave', '离开'],
  'table.pgn': ['Descargar PGN', 'Download PGN', '下载棋谱'],
  'table.moves': ['Jugadas', 'Moves', '着法'],
  'table.to_move': ['Juega {seat}', '{seat} to move', '轮到{seat}走棋'],
  'table.moving': ['juega', 'to move', '走棋'],
  'table.thinking': ['pensando…', 'thinking…', '思考中…'],
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
  'table.confirm_leave': ['La partida sigue en juego. Si sales y no vuelves a tiempo, la perderás por abandono. ¿Salir de todos modos?', 'The game is still running. If you leave and do not come back in time, you lose it by abandonment. Leave anyway?', '对局仍在进行。离开后如未及时返回，将判你弃局负。仍要离开吗？'],
  'table.absent_running': ['{who} se ha desconectado: pierde por abandono en {time}', '{who} is disconnected: loses by abandonment in {time}', '{who}已断线：{time}后判弃局负'],
  'table.absent_abort': ['{who} se ha desconectado: la partida se anula en {time}', '{who} is disconnected: the game is aborted in {time}', '{who}已断线：{time}后对局取消'],
  'table.absent_open': ['{who} se ha desconectado: deja el asiento libre en {time}', '{who} is disconnected: the seat is freed in {time}', '{who}已断线：{time}后让出座位'],
  'table.defeated': ['derrotado', 'defeated', '已败'],
  'table.defeat_line': ['{seat} cae ({reason}): su ejército pasa a {heir}', '{seat} falls ({reason}): its army goes to {heir}', '{seat}覆灭（{reason}），其兵马归{heir}'],
  'defeat.general-captured': ['general capturado', 'General captured', '将帅被吃'],
  'defeat.no-legal-move': ['sin jugadas', 'no legal move', '无子可走'],
  'table.guest_sit': ['Para sentarte, escribe tu nombre de invitado:', 'To sit, type your guest name:', '入座前，请输入游客名字：'],
  'table.enter_and_sit': ['Entrar y sentarse', 'Enter and sit', '进入并入座'],
  'table.or_login': ['o entra con tu cuenta en la sala', 'or log in from the lobby', '或在大厅登录账号'],
  'lobby.your_game': ['Tu partida de {variant} está en juego.', 'Your {variant} game is running.', '你的{variant}对局正在进行。'],
  'lobby.back_to_game': ['Volver a la partida', 'Back to the game', '回到对局'],
  'lobby.resume': ['Volver', 'Resume', '返回'],
  'table.zoom_in': ['Ampliar tablero', 'Zoom in', '放大棋盘'],
  'table.zoom_out': ['Tablero entero', 'Whole board', '完整棋盘'],
  'level.1': ['Principiante', 'Beginner', '入门'],
  'level.2': ['Novato', 'Novice', '新手'],
  'level.3': ['Aficionado', 'Amateur', '业余'],
  'level.4': ['Jugador de club', 'Club player', '棋社水平'],
  'level.5': ['Fuerte', 'Strong', '强手'],
  'level.6': ['Experto', 'Expert', '高手'],
  'level.7': ['Maestro', 'Master', '大师'],
  'level.8': ['Máximo', 'Maximum', '最强'],
  'level.hint': ['{name}: {what}; piensa hasta {s} s por jugada', '{name}: {what}; thinks up to {s} s a move', '{name}：{what}；每步最多思考{s}秒'],
  'level.what.1': ['mira una jugada adelante y se equivoca a menudo', 'looks one move ahead and often goes wrong', '只看一步，常出错'],
  'level.what.2': ['ve poco más allá y aún se equivoca a menudo', 'sees a little further, still often wrong', '看得稍远，仍常出错'],
  'level.what.3': ['ve unas jugadas adelante, con errores', 'sees a few moves ahead, with mistakes', '能看几步，有失误'],
  'level.what.4': ['juega con criterio, algún error', 'plays sensibly, some mistakes', '下得有章法，偶有失误'],
  'level.what.5': ['nivel de club, pocos errores', 'club strength, few mistakes', '棋社水平，失误较少'],
  'level.what.6': ['fuerte, errores raros', 'strong, rare mistakes', '强，很少失误'],
  'level.what.7': ['muy fuerte, casi sin errores', 'very strong, hardly any mistakes', '很强，几乎不失误'],
  'level.what.8': ['toda su fuerza, sin errores a propósito', 'full strength, no deliberate mistakes', '全力，不故意失误'],
  'lobby.vs_title': ['Jugar contra el ordenador', 'Play the computer', '与电脑对弈'],
  'lobby.vs_play': ['Jugar', 'Play', '开始对弈'],
  'lobby.vs_needs_session': ['Entra primero (arriba) para jugar.', 'Enter first (above) to play.', '请先在上方进入。'],
  'table.rematch': ['Revancha', 'Rematch', '再来一局'],
  'table.new_game': ['Nueva partida', 'New game', '新对局'],
  'analysis.nav': ['Análisis', 'Analysis', '分析'],
  'puzzle.nav': ['Problemas', 'Puzzles', '习题'],
  'puzzle.title': ['Problema', 'Puzzle', '习题'],
  'puzzle.daily': ['Problema del día', 'Daily puzzle', '每日一题'],
  'puzzle.loading': ['Cargando el problema…', 'Loading the puzzle…', '正在载入习题…'],
  'puzzle.watch': ['Mira la jugada del rival…', "Watch your opponent's move…", '请看对手的着法…'],
  'puzzle.find_red': ['Juegan las rojas: encuentra la mejor jugada', 'Red to play: find the best move', '红方走：找出最佳着法'],
  'puzzle.find_black': ['Juegan las negras: encuentra la mejor jugada', 'Black to play: find the best move', '黑方走：找出最佳着法'],
  'puzzle.keep_going': ['¡Bien! Sigue', 'Good! Keep going', '很好！继续'],
  'puzzle.wrong': ['Esa no es la jugada. Inténtalo de nuevo o mira la solución.', "That's not the move. Try again or view the solution.", '不是这步棋。请再试一次，或查看答案。'],
  'puzzle.solved': ['¡Resuelto!', 'Solved!', '解题成功！'],
  'puzzle.failed': ['Esta es la solución.', 'That was the solution.', '以上就是答案。'],
  'puzzle.hint': ['Pista', 'Hint', '提示'],
  'puzzle.view_solution': ['Ver la solución', 'View the solution', '查看答案'],
  'puzzle.retry': ['Reintentar', 'Try again', '再试一次'],
  'puzzle.next': ['Siguiente problema', 'Next puzzle', '下一题'],
  'puzzle.rating': ['Puntuación', 'Rating', '等级分'],
  'puzzle.plays': ['{n} intentos', '{n} plays', '{n} 次尝试'],
  'puzzle.from_game': ['De la partida {game}, jugada {ply}', 'From game {game}, ply {ply}', '出自对局 {game}，第 {ply} 步'],
  'puzzle.your_rating': ['Tu puntuación de problemas: {rating}', 'Your puzzle rating: {rating}', '你的习题等级分：{rating}'],
  'puzzle.rating_now': ['Tu puntuación: {rating} ({diff})', 'Your rating: {rating} ({diff})', '你的等级分：{rating}（{diff}）'],
  'puzzle.not_rated': ['Ya lo habías intentado: tu puntuación sigue en {rating}', 'You had tried it before: your rating stays {rating}', '此题已做过：等级分仍为 {rating}'],
  'puzzle.sign_in': ['Entra como invitado en la sala para tener una puntuación de problemas.', 'Enter as a guest in the lobby to get a puzzle rating.', '在大厅以访客身份进入即可获得习题等级分。'],
  'puzzle.none': ['No hay problemas con ese tema.', 'No puzzle has that theme.', '没有该主题的习题。'],
  'puzzle.theme': ['Tema', 'Theme', '主题'],
  'puzzle.any_theme': ['Cualquiera', 'Any', '不限'],
  'puzzle.about': ['Problemas sacados de partidas reales y comprobados por dos motores. Juega tus jugadas; las del rival se juegan solas.', 'Puzzles mined from real games and checked by two engines. Play your moves; the opponent\'s replies are played for you.', '习题取自真实对局，经两个引擎验证。你走己方着法，对方应着自动走出。'],
  'puzzle.solve_daily': ['Resolver', 'Solve it', '开始解题'],
  'puzzle.more': ['Más problemas', 'More puzzles', '更多习题'],
  'puzzle.theme.mateIn1': ['Mate en 1', 'Mate in 1', '一步杀'],
  'puzzle.theme.mateIn2': ['Mate en 2', 'Mate in 2', '两步杀'],
  'puzzle.theme.mateIn3': ['Mate en 3', 'Mate in 3', '三步杀'],
  'puzzle.theme.mateIn4': ['Mate en 4 o más', 'Mate in 4 or more', '四步及以上杀'],
  'puzzle.theme.advantage': ['Ventaja', 'Advantage', '得子优势'],
  'puzzle.theme.crushing': ['Aplastante', 'Crushing', '大优'],
  'puzzle.theme.sacrifice': ['Sacrificio', 'Sacrifice', '弃子'],
  'puzzle.theme.fork': ['Ataque doble', 'Fork', '捉双'],
  'puzzle.theme.discoveredCheck': ['Jaque descubierto', 'Discovered check', '闪将'],
  'puzzle.theme.doubleCheck': ['Jaque doble', 'Double check', '双将'],
  'puzzle.theme.cannonScreen': ['Pantalla del cañón', 'Cannon screen', '炮架'],
  'puzzle.theme.flyingGeneral': ['General volador', 'Flying General', '对面笑'],
  'puzzle.theme.endgame': ['Final', 'Endgame', '残局'],
  'analysis.open': ['Analizar la partida', 'Analyse the game', '分析对局'],
  'analysis.title': ['Tablero de análisis', 'Analysis board', '分析棋盘'],
  'analysis.of_game': ['La partida de la mesa', 'The game of table', '对局桌号'],
  'analysis.of_fen': ['La posición introducida', 'The position entered', '输入的局面'],
  'analysis.of_start': ['La posición inicial: escribe un FEN para analizar otra', 'The start position: enter a FEN to analyse another', '开局局面：输入FEN可分析其他局面'],
  'analysis.fen': ['Posición (FEN)', 'Position (FEN)', '局面（FEN）'],
  'analysis.analyse': ['Analizar', 'Analyse', '分析'],
  'analysis.best_line': ['Mejor línea:', 'Best line:', '最佳着法：'],
  'analysis.depth': ['profundidad {depth} · {nodes} posiciones', 'depth {depth} · {nodes} positions', '深度{depth} · {nodes}个局面'],
  'analysis.progress': ['Analizando: {done} de {total} posiciones', 'Analysing: {done} of {total} positions', '分析中：{done}/{total}个局面'],
  'analysis.over': ['fin', 'over', '终局'],
  'analysis.eval_bar': ['Ventaja: Rojo a la izquierda, Negro a la derecha', 'Advantage: Red on the left, Black on the right', '优势：左为红方，右为黑方'],
  'analysis.limits': ['El motor mira 60 000 posiciones por jugada (como mucho 0,3 s). La evaluación es desde el lado Rojo, en peones: +1.00 es un peón de ventaja para Rojo; #3, mate en 3.', 'The engine looks at 60,000 positions a move (0.3 s at most). The evaluation is from Red\'s side, in soldiers: +1.00 is a soldier up for Red; #3, mate in 3.', '引擎每步计算60000个局面（最多0.3秒）。评分以红方为准，单位为兵：+1.00即红方多一兵；#3即三步杀。'],
  'analysis.graph': ['Evolución de la ventaja: Rojo arriba, Negro abajo; pulsa para ir a esa jugada', 'The advantage over the game: Red above, Black below; click to go to that move', '全局优势走势：上为红方，下为黑方；点击可跳到该步'],
  'analysis.inaccuracy': ['Imprecisión', 'Inaccuracy', '缓着'],
  'analysis.mistake': ['Error', 'Mistake', '错着'],
  'analysis.blunder': ['Error grave', 'Blunder', '败着'],
  'analysis.better': [': mejor era {move}', ': better was {move}', '：更好的是{move}'],
  'analysis.keys': ['Las flechas ← → recorren la partida; Inicio y Fin van al principio y al final.', 'The arrow keys ← → step through the game; Home and End go to its start and end.', '方向键←→逐步查看对局；Home和End跳到开始和结束。'],
  'fen.syntax': ['El FEN no se puede leer: {why}', 'The FEN does not read: {why}', 'FEN无法读取：{why}'],
  'fen.invalid': ['Posición no permitida: {why}', 'Position not allowed: {why}', '局面不合规则：{why}'],
  'fen.unreadable': ['no es un FEN de xiangqi', 'it is not a xiangqi FEN', '不是象棋FEN'],
  'fen.bad-rank-count': ['el tablero debe tener 10 filas separadas por /', 'the board must have 10 ranks separated by /', '棋盘须有10行，以/分隔'],
  'fen.bad-rank-length': ['cada fila debe sumar 9 puntos', 'every rank must add up to 9 points', '每行须合计9个点'],
  'fen.bad-piece-letter': ['hay una letra que no es una pieza (K A B N R C P, en minúscula para Negro)', 'a letter is not a piece (K A B N R C P, lower case for Black)', '有字母不是棋子（K A B N R C P，黑方用小写）'],
  'fen.bad-side': ['el bando que mueve debe ser w (Rojo) o b (Negro)', 'the side to move must be w (Red) or b (Black)', '走棋方须为w（红）或b（黑）'],
  'fen.bad-field': ['los campos tras el bando no son válidos', 'the fields after the side are not valid', '走棋方之后的字段无效'],
  'fen.bad-counters': ['los contadores de jugadas deben ser números', 'the move counters must be numbers', '步数计数须为数字'],
  'fen.general-count': ['cada bando debe tener exactamente un General', 'each side must have exactly one General', '双方须各有且只有一个帅（将）'],
  'fen.piece-count': ['un bando tiene como mucho 2 Consejeros, Elefantes, Caballos, Carros y Cañones y 5 Soldados', 'a side has at most 2 Advisors, Elephants, Horses, Chariots and Cannons and 5 Soldiers', '每方最多2仕（士）、相（象）、马、车、炮，5兵（卒）'],
  'fen.general-outside-palace': ['el General debe estar en su palacio', 'a General must stand in its palace', '帅（将）须在九宫内'],
  'fen.advisor-square': ['un Consejero solo puede estar en los 5 puntos de su palacio', 'an Advisor may stand only on the 5 points of its palace', '仕（士）只能在九宫的5个点上'],
  'fen.elephant-square': ['un Elefante solo puede estar en sus 7 puntos, en su lado del río', 'an Elephant may stand only on its 7 points, on its side of the river', '相（象）只能在本方河界内的7个点上'],
  'fen.soldier-square': ['un Soldado está donde nunca puede estar (antes de cruzar el río, solo en sus puntos de salida o delante de ellos)', 'a Soldier stands where it never can (before the river, only on its starting points or just ahead of them)', '兵（卒）在不可能到达的位置（过河前只能在原位或其前一格）'],
  'fen.generals-facing': ['los Generales no pueden verse en una columna abierta', 'the Generals must not face each other on an open file', '帅将不能在同一直线上照面'],
  'fen.opponent-in-check': ['el bando que no mueve está en jaque', 'the side not to move is in check', '非走棋方正被将军'],
  'editor.open': ['Editor de tablero: prepara una posición', 'Board editor: set up a position', '棋盘编辑器：摆设局面'],
  'editor.nav': ['Editor', 'Editor', '编辑器'],
  'editor.title': ['Editor de tablero', 'Board editor', '棋盘编辑器'],
  'editor.help': ['Elige una pieza y pulsa en el tablero para ponerla; pulsa otra vez, usa el clic derecho o la papelera para quitarla.', 'Choose a piece and click the board to put it there; click again, right-click or use the bin to take it away.', '选一个棋子，点击棋盘放置；再点一次、右键或用垃圾桶可移除。'],
  'editor.red': ['Rojo', 'Red', '红方'],
  'editor.black': ['Negro', 'Black', '黑方'],
  'editor.piece.k': ['General', 'General', '帅（将）'],
  'editor.piece.a': ['Consejero', 'Advisor', '仕（士）'],
  'editor.piece.b': ['Elefante', 'Elephant', '相（象）'],
  'editor.piece.n': ['Caballo', 'Horse', '马'],
  'editor.piece.r': ['Carro', 'Chariot', '车'],
  'editor.piece.c': ['Cañón', 'Cannon', '炮'],
  'editor.piece.p': ['Soldado', 'Soldier', '兵（卒）'],
  'editor.bin': ['Papelera: quitar piezas', 'Bin: take pieces away', '垃圾桶：移除棋子'],
  'editor.side': ['Mueve:', 'To move:', '走棋方：'],
  'editor.red_moves': ['Rojo', 'Red', '红方'],
  'editor.black_moves': ['Negro', 'Black', '黑方'],
  'editor.start': ['Posición inicial', 'Start position', '初始局面'],
  'editor.empty': ['Tablero vacío', 'Empty board', '空棋盘'],
  'editor.checking': ['Comprobando la posición…', 'Checking the position…', '正在检查局面…'],
  'editor.legal': ['Posición legal', 'A legal position', '局面合法'],
  'analysis.xiangqi_only': ['El análisis es solo para partidas de xiangqi', 'Analysis is for xiangqi games only', '仅可分析象棋对局'],
  'table.rematch_sent': ['Revancha propuesta', 'Rematch offered', '已提议再来一局'],
  'table.rematch_offered': ['{seat} propone la revancha', '{seat} offers a rematch', '{seat}提议再来一局'],
  'table.accept_rematch': ['Aceptar la revancha', 'Accept the rematch', '接受再来一局'],
  'table.decline_rematch': ['Rechazar la revancha', 'Decline the rematch', '拒绝再来一局'],
  'table.rematch_declined': ['{seat} no quiere la revancha', '{seat} declined the rematch', '{seat}不想再来一局'],
  'table.go_rematch': ['Ir a la revancha', 'Go to the rematch', '前往再来一局'],
  'table.flip': ['Girar tablero', 'Flip board', '翻转棋盘'],
  'table.draw_declined': ['{seat} rechaza las tablas', '{seat} declines the draw', '{seat}拒绝和棋'],
  'table.ask_takeback': ['Pedir deshacer', 'Propose a takeback', '请求悔棋'],
  'table.accept_takeback': ['Aceptar deshacer', 'Accept the takeback', '同意悔棋'],
  'table.decline_takeback': ['Rechazar deshacer', 'Decline the takeback', '拒绝悔棋'],
  'table.takeback_offered': ['{seat} pide deshacer su última jugada', '{seat} asks to take back their last move', '{seat}请求悔棋'],
  'table.takeback_declined': ['{seat} no acepta deshacer', '{seat} declined the takeback', '{seat}拒绝悔棋'],
  'table.takeback': ['Deshacer jugada', 'Take back', '悔棋'],
  'error.no_takeback': ['No hay jugada tuya que deshacer', 'There is no move of yours to take back', '没有可悔的着法'],
  'table.spectators': ['{n} mirando', '{n} watching', '{n}人观战'],
  'chat.players': ['Chat de los jugadores', 'Players\' chat', '棋手聊天'],
  'chat.spectators': ['Chat de los espectadores', 'Spectators\' chat', '观众聊天'],
  'chat.placeholder': ['Escribe un mensaje', 'Type a message', '输入消息'],
  'chat.send': ['Enviar', 'Send', '发送'],
  'table.confirm_resign': ['¿Seguro que te rindes?', 'Resign for sure?', '确定认输吗？'],
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
  'loss.stalemate': ['{loser} se quedó sin jugadas (ahogado)', '{loser} was stalemated', '{loser}被困毙'],
  'loss.no-legal-move': ['{loser} se quedó sin jugadas', '{loser} had no legal move', '{loser}无子可走'],
  'loss.general-captured': ['{loser} perdió su general', '{loser} lost the General', '{loser}的将帅被吃'],
  'loss.all-captured': ['{loser} perdió todas sus piezas', '{loser} lost every piece', '{loser}的棋子被吃光'],
  'loss.perpetual-check': ['{loser} dio jaque perpetuo', '{loser} gave perpetual check', '{loser}长将'],
  'loss.perpetual-chase': ['{loser} persiguió sin cesar (persecución perpetua)', '{loser} chased perpetually', '{loser}长捉'],
  'loss.resignation': ['{loser} se rindió', '{loser} resigned', '{loser}认输'],
  'loss.timeout': ['{loser} se quedó sin tiempo', '{loser} ran out of time', '{loser}超时'],
  'loss.abandonment': ['{loser} dejó la partida', '{loser} left the game', '{loser}离开了对局'],
  // the same lines with two losers (two sanguo kingdoms): the verb agrees with them
  'losses.stalemate': ['{loser} se quedaron sin jugadas (ahogado)', '{loser} were stalemated', '{loser}被困毙'],
  'losses.no-legal-move': ['{loser} se quedaron sin jugadas', '{loser} had no legal move', '{loser}无子可走'],
  'losses.general-captured': ['{loser} perdieron sus generales', '{loser} lost their Generals', '{loser}的将帅被吃'],
  'losses.all-captured': ['{loser} perdieron todas sus piezas', '{loser} lost every piece', '{loser}的棋子被吃光'],
  'losses.perpetual-check': ['{loser} dieron jaque perpetuo', '{loser} gave perpetual check', '{loser}长将'],
  'losses.perpetual-chase': ['{loser} persiguieron sin cesar (persecución perpetua)', '{loser} chased perpetually', '{loser}长捉'],
  'losses.resignation': ['{loser} se rindieron', '{loser} resigned', '{loser}认输'],
  'losses.timeout': ['{loser} se quedaron sin tiempo', '{loser} ran out of time', '{loser}超时'],
  'losses.abandonment': ['{loser} dejaron la partida', '{loser} left the game', '{loser}离开了对局'],
  'error.network': ['No hay conexión con el servidor; prueba de nuevo', 'The server cannot be reached; try again', '无法连接服务器，请重试'],
  'error.unknown': ['El servidor no lo permitió', 'The server refused it', '服务器拒绝了该操作'],
  'error.bad_message': ['Petición no válida', 'Invalid request', '请求无效'],
  'error.too_large': ['Demasiado largo', 'Too long', '内容过长'],
  'error.unauthorized': ['Necesitas entrar primero (como invitado o con tu cuenta)', 'You need to enter first (as a guest or with your account)', '请先进入（游客或账号）'],
  'error.not_found': ['No existe', 'It does not exist', '不存在'],
  'error.not_seated': ['Solo los jugadores sentados pueden hacer eso', 'Only seated players can do that', '只有入座的玩家才能这样做'],
  'error.stale_version': ['La mesa cambió mientras tanto; vuelve a intentarlo', 'The table changed meanwhile; try again', '棋局已变化，请重试'],
  'error.illegal_move': ['Jugada no permitida', 'Illegal move', '着法不合规则'],
  'error.not_allowed': ['Eso no se puede hacer ahora', 'That cannot be done now', '现在不能这样做'],
  'error.method_not_allowed': ['Petición no válida', 'Invalid request', '请求无效'],
  'error.forbidden': ['Petición rechazada', 'Request refused', '请求被拒绝'],
  'error.internal': ['Fallo del servidor; prueba de nuevo', 'Server failure; try again', '服务器故障，请重试'],
  'error.in_doubt': ['El servidor no pudo confirmar la acción; se muestra la mesa tal como está', 'The server could not confirm the action; showing the table as it is', '服务器未能确认该操作；正在显示棋桌的当前状态'],
  'error.unavailable': ['La mesa pasa a otro servidor; reconectando…', 'The table is moving to another server; reconnecting…', '棋桌正在转到另一台服务器，正在重新连接…'],
  'error.game_ended': ['La partida ya ha terminado', 'The game has ended', '对局已结束'],
  'error.not_started': ['La partida aún no ha empezado', 'The game has not started', '对局尚未开始'],
  'error.already_started': ['La partida ya ha empezado', 'The game has already started', '对局已经开始'],
  'error.seats_fixed': ['Los asientos solo cambian antes de empezar', 'Seats change only before the start', '开局后不能换座'],
  'error.seats_empty': ['Faltan jugadores: todos los asientos deben estar ocupados', 'Every seat must be taken to start', '需坐满才能开始'],
  'error.already_seated': ['Ya estás sentado en esta mesa', 'You already sit at this table', '你已在此桌入座'],
  'error.already_offered': ['Ya ofreciste tablas', 'You already offered a draw', '你已提和'],
  'error.no_offer': ['No hay oferta de tablas que responder', 'There is no draw offer to answer', '没有待回应的提和'],
  'error.abort_late': ['Solo se puede anular antes de la primera jugada', 'A game can be aborted only before its first move', '只能在第一步之前取消对局'],
  'error.computer_rated': ['El ordenador no juega partidas puntuables', 'The computer does not play rated games', '电脑不参加计分对局'],
  'error.no_draws': ['Este juego no tiene tablas por acuerdo', 'This game has no draw offers', '此玩法不能提和'],
  'error.out_of_game': ['Tu reino ya está fuera de la partida', 'Your side is already out of the game', '你方已出局'],
  'error.conflict': ['Ese asiento o nombre ya está ocupado', 'That seat or name is taken', '该座位或名字已被占用'],
  'error.name_taken': ['Ese nombre de cuenta ya existe', 'That account name is taken', '该账号名已被占用'],
  'error.wrong_password': ['Nombre o contraseña incorrectos', 'Wrong name or password', '账号名或密码错误'],
  'error.not_your_turn': ['No es tu turno', 'Not your turn', '还没轮到你'],
  'error.not_ready': ['Falta un jugador: alguien sentado no está conectado', 'A seated player is not connected', '有已入座的玩家未连接'],
  'error.rate_limited': ['Demasiadas peticiones seguidas; prueba de nuevo en {seconds} s', 'Too many requests in a row; try again in {seconds} s', '请求过于频繁，请在 {seconds} 秒后重试'],
  'error.engine_busy': ['El motor de análisis está ocupado; prueba de nuevo en {seconds} s', 'The analysis engine is busy; try again in {seconds} s', '分析引擎正忙，请在 {seconds} 秒后重试'],
  'error.database_unavailable': ['La base de datos no responde; prueba de nuevo en unos segundos', 'The database is not answering; try again in a few seconds', '数据库暂时无法访问，请几秒后重试'],
  'error.request_timeout': ['La petición tardó demasiado en llegar; prueba de nuevo', 'The request took too long to arrive; try again', '请求传输超时，请重试'],
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
