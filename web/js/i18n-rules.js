// The texts of the rules pages (rules.js), in the catalogue's shape: key -> [es, en, zh].
// i18n.js merges them into the one catalogue, so t() is the only lookup and the unit tests check
// that every key has its three languages. Written for chuhe from spec/xiangqi.md, sanguo.md and
// banqi.md; the Spanish uses the usual xiangqi terms (General, Consejero, Elefante, Caballo,
// Carro, Cañón, Soldado; río, palacio), the Chinese the traditional names.

/** @type {Record<string, [string, string, string]>} */
export const RULES_CATALOGUE = {
  // ------------------------------------------------------------------ shared
  'rules.nav': ['Reglas', 'Rules', '规则'],
  'rules.learn': ['Aprende las reglas', 'Learn the rules', '学习规则'],
  'rules.help': [
    'Los tableros se pueden tocar: pulsa una pieza para ver adónde puede ir y pulsa un destino para jugar.',
    'The boards are live: tap a piece to see where it can go, then tap a point to play there.',
    '棋盘可以操作：点击棋子查看它能走到哪里，再点击落点即可走棋。',
  ],
  'rules.loading': ['Cargando…', 'Loading…', '加载中…'],
  'rules.reset': ['Volver a empezar', 'Start again', '重来'],
  'rules.to_move': ['Juega {side}', '{side} to move', '轮到{side}走棋'],
  'rules.check': ['Jaque', 'Check', '将军'],
  'rules.title.xiangqi': ['Reglas del xiangqi', 'Xiangqi rules', '象棋规则'],
  'rules.title.sanguo': ['Reglas del xiangqi de los Tres Reinos', 'Three Kingdoms xiangqi rules', '三国象棋规则'],
  'rules.title.banqi': ['Reglas del banqi', 'Banqi rules', '暗棋规则'],
  'rules.piece.general': ['General', 'General', '帅（将）'],
  'rules.piece.advisor': ['Consejero', 'Advisor', '仕（士）'],
  'rules.piece.elephant': ['Elefante', 'Elephant', '相（象）'],
  'rules.piece.horse': ['Caballo', 'Horse', '马'],
  'rules.piece.chariot': ['Carro', 'Chariot', '车'],
  'rules.piece.cannon': ['Cañón', 'Cannon', '炮'],
  'rules.piece.soldier': ['Soldado', 'Soldier', '兵（卒）'],
  'rules.action.remove_soldier': ['Quitar el Soldado', 'Remove the Soldier', '拿走这个兵（卒）'],
  'rules.action.put_soldier': ['Poner un Soldado', 'Put a Soldier there', '放上一个兵（卒）'],
  'rules.action.screen_aside': ['Apartar la pantalla', 'Move the screen aside', '移开炮架'],
  'rules.action.two_screens': ['Poner dos pantallas', 'Put two screens', '放两个炮架'],
  'rules.action.one_screen': ['Dejar una sola pantalla', 'Leave a single screen', '只留一个炮架'],
  'rules.action.put_between': ['Poner una pieza entre los generales', 'Put a piece between the Generals', '在将帅之间放一个子'],
  'rules.action.remove_between': ['Quitar esa pieza', 'Remove that piece', '拿走这个子'],
  'rules.action.soldier_on_tip': ['Poner un Soldado en el vértice', 'Put a Soldier on the tip', '在顶点放一个兵'],
  'rules.action.chariot_on_tip': ['Poner un Carro en el vértice', 'Put a Chariot on the tip', '在顶点放一个车'],
  'rules.action.black_moves': ['Ver las jugadas de Negro', 'Show Black’s moves', '看黑方的走法'],
  'rules.action.red_moves': ['Ver las jugadas de Rojo', 'Show Red’s moves', '看红方的走法'],
  'rules.time.h': ['Reloj, abandono y salir de la mesa', 'Clock, resigning and leaving', '计时、认输与离开'],
  'rules.time.p1': [
    'En una mesa con reloj cada jugador tiene su propio tiempo, que solo corre durante su turno, y recibe unos segundos más después de cada jugada (el incremento). Quien agota su tiempo pierde. Se puede abandonar en cualquier momento, y eso es perder. Quien se desconecta tiene 60 segundos para volver; pasado ese plazo pierde por abandonar la mesa. Antes de la primera jugada la partida se puede anular sin resultado.',
    'At a timed table each player has their own time, which runs only on their turn, and gets a few seconds more after each move (the increment). Running out of time loses. You may resign at any moment, which loses the game. If you lose your connection you have 60 seconds to come back; after that you lose for leaving the table. Before the first move a game can be aborted with no result.',
    '计时的棋桌上，每位棋手有各自的用时，只在自己走棋时减少，每走一步还会加几秒（加秒）。用时耗尽判负。任何时候都可以认输，认输即判负。掉线后有60秒可以回来，过时不回视为离开棋桌，判负。第一步棋之前可以取消对局，不计结果。',
  ],

  // ------------------------------------------------------------------ xiangqi
  'rules.xq.intro': [
    'El xiangqi, o ajedrez chino, es una batalla entre dos ejércitos, Rojo y Negro, que juegan por turnos; empieza Rojo. Gana quien deja al rival sin ninguna jugada legal, normalmente dándole jaque mate al General.',
    'Xiangqi, Chinese chess, is a battle between two armies, Red and Black, who move in turn; Red starts. You win by leaving your opponent without any legal move, usually by checkmating their General.',
    '象棋是红黑两军的对战，双方轮流走棋，红方先走。让对方无棋可走即获胜，通常是把对方的将（帅）将死。',
  ],
  'rules.xq.board.h': ['El tablero', 'The board', '棋盘'],
  'rules.xq.board.p1': [
    'Las piezas no van dentro de las casillas, sino sobre los puntos donde se cruzan las líneas: 9 columnas por 10 filas. Por el centro pasa el río, que separa los dos campos. Cada bando tiene un palacio: los 3 × 3 puntos del centro de sus tres primeras filas, marcados con dos diagonales.',
    'Pieces do not stand inside the squares but on the points where the lines cross: 9 files by 10 ranks. The river runs across the middle and divides the two camps. Each side has a palace: the 3 × 3 points in the middle of its first three ranks, marked with two diagonals.',
    '棋子不放在格子里，而是放在线的交叉点上：纵线9条，横线10条。中间的“楚河汉界”把棋盘分成两半。双方各有一个九宫，即本方底部中央画有斜线的3×3个点。',
  ],
  'rules.xq.board.p2': [
    'Las jugadas se escriben con coordenadas: columnas de la a a la i desde la izquierda de Rojo y filas del 0 al 9 desde su fondo. Así, h2e2 lleva la pieza de h2 a e2.',
    'Moves are written with coordinates: files a to i from Red’s left and ranks 0 to 9 from Red’s back rank. So h2e2 takes the piece on h2 to e2.',
    '着法可以用坐标记录：从红方左边起纵线为a到i，从红方底线起横线为0到9。例如h2e2表示把h2的棋子走到e2。',
  ],
  'rules.xq.pieces.h': ['Las piezas y cómo mueven', 'The pieces and how they move', '棋子走法'],
  'rules.xq.pieces.p1': [
    'Cada bando tiene 16 piezas: un General, dos Consejeros, dos Elefantes, dos Caballos, dos Carros, dos Cañones y cinco Soldados. Una pieza captura al ocupar el punto de una pieza contraria, que sale del tablero; nunca puede ocupar el de una pieza propia.',
    'Each side has 16 pieces: one General, two Advisors, two Elephants, two Horses, two Chariots, two Cannons and five Soldiers. A piece captures by moving onto the point of an enemy piece, which leaves the board; it may never move onto a piece of its own side.',
    '双方各有16个棋子：帅（将）一个，仕（士）、相（象）、马、车、炮各两个，兵（卒）五个。走到对方棋子所在的点上就把它吃掉；不能走到己方棋子所在的点上。',
  ],
  'rules.xq.pieces.legend': [
    'Junto a los caracteres de cada pieza va su símbolo, el que dibuja el juego de piezas «Símbolos» (se elige en la cabecera): la corona del General, el escudo con una cruz en diagonal del Consejero, la cabeza del Elefante y la del Caballo, la rueda del Carro, el Cañón sobre su cureña y el Soldado con su casco.',
    'Beside each piece’s characters stands its symbol, as the Symbols piece set draws it (chosen in the header): the General’s crown, the Advisor’s shield with a diagonal cross, the Elephant’s and the Horse’s heads, the Chariot’s wheel, the Cannon on its carriage and the helmeted Soldier.',
    '每个棋子的汉字旁边是它的图形，即“图形”棋子（可在页头选择）所画的样子：帅的王冠、仕的斜十字盾牌、相的象头、马的马头、车的车轮、炮的炮车和戴盔的兵。',
  ],
  'rules.xq.move.general': [
    'Avanza, retrocede o se desplaza un punto en horizontal o vertical, sin salir nunca del palacio.',
    'Steps one point along a line, forward, back or sideways, and never leaves the palace.',
    '沿横线或纵线走一步，不能走出九宫。',
  ],
  'rules.xq.move.advisor': [
    'Un punto en diagonal, siempre dentro del palacio.',
    'One point diagonally, always inside the palace.',
    '沿九宫斜线走一步，不能出九宫。',
  ],
  'rules.xq.move.elephant': [
    'Exactamente dos puntos en diagonal. No salta: si el punto intermedio, su «ojo», está ocupado, no puede ir. Nunca cruza el río.',
    'Exactly two points diagonally. It does not jump: if the point in between, its “eye”, is taken, it cannot go. It never crosses the river.',
    '斜走两格，即走“田”字。田字中心有子时不能走，叫“塞象眼”。相（象）不能过河。',
  ],
  'rules.xq.move.horse': [
    'Un punto en horizontal o vertical y luego otro en diagonal, alejándose. No salta: si ese primer punto, su «pata», está ocupado, ese camino queda cerrado.',
    'One point along a line, then one diagonally outwards. It does not jump: if that first point, its “leg”, is taken, the way is closed.',
    '先直走一步，再斜走一步，即走“日”字。直走的那一点有子时不能走，叫“蹩马腿”。',
  ],
  'rules.xq.move.chariot': [
    'Tantos puntos como quiera en horizontal o vertical, sin saltar por encima de ninguna pieza.',
    'Any number of points along a line, without jumping over any piece.',
    '沿直线走，步数不限，不能越过其他棋子。',
  ],
  'rules.xq.move.cannon': [
    'Se mueve como el Carro, pero para capturar tiene que saltar exactamente una pieza de cualquier color, la pantalla.',
    'Moves like the Chariot, but to capture it must jump over exactly one piece of either colour, its screen.',
    '不吃子时走法和车一样；吃子时必须隔着一个棋子（炮架，哪方的都可以）跳过去吃。',
  ],
  'rules.xq.move.soldier': [
    'Un punto hacia delante. Cuando ha cruzado el río también puede ir un punto a la izquierda o a la derecha. Nunca retrocede.',
    'One point forward. Once it has crossed the river it may also step one point to the left or right. It never moves back.',
    '每次向前走一步；过河以后也可以向左或向右走一步。兵（卒）永远不能后退。',
  ],
  'rules.xq.diagram.horse': [
    'Pulsa el Caballo: el Soldado negro le pisa la pata y le cierra dos destinos.',
    'Tap the Horse: the Black Soldier stands on its leg and closes two of its points.',
    '点击马：黑卒蹩住了马腿，挡住了两个落点。',
  ],
  'rules.xq.diagram.elephant': [
    'El Elefante no cruza el río, y el Soldado en su ojo le cierra uno de los dos destinos.',
    'The Elephant never crosses the river, and the Soldier on its eye closes one of its two points.',
    '相不能过河；卒塞住象眼，相只剩一个落点。',
  ],
  'rules.xq.diagram.cannon': [
    'El Cañón solo captura el Carro negro con exactamente una pieza entre los dos.',
    'The Cannon takes the Black Chariot only with exactly one piece between them.',
    '炮和黑车之间恰好隔一个子时，炮才能吃车。',
  ],
  'rules.xq.diagram.facing': [
    'El General rojo no puede pisar la columna abierta del General negro.',
    'The Red General may not step onto the Black General’s open file.',
    '红帅不能走到与黑将照面的那条线上。',
  ],
  'rules.xq.check.h': ['Jaque, jaque mate y ahogado', 'Check, checkmate and stalemate', '将军、将死与困毙'],
  'rules.xq.check.p1': [
    'Un General está en jaque cuando una pieza contraria podría capturarlo en la jugada siguiente. Ninguna jugada puede dejar en jaque al propio General: quien está en jaque tiene que salir de él, capturando la pieza que ataca, tapando su línea o moviendo el General.',
    'A General is in check when an enemy piece could capture it on the next move. No move may leave your own General in check: if you are in check you must get out of it, by capturing the attacker, blocking its line or moving the General.',
    '一方的帅（将）可能在下一步被对方吃掉，叫“将军”。任何一步棋都不能让己方的帅（将）处于被将军的状态：被将军时必须应将，可以吃掉将军的子、垫子挡住，或者移动帅（将）。',
  ],
  'rules.xq.check.p2': [
    'Los dos Generales tampoco pueden quedar frente a frente en la misma columna sin ninguna pieza entre ellos: eso cuenta como un ataque.',
    'Nor may the two Generals face each other on the same file with no piece between them: that counts as an attack.',
    '将帅也不能在同一条纵线上直接对面，中间必须隔有棋子，这叫“将帅不能照面”。',
  ],
  'rules.xq.check.p3': [
    'Quien no tiene ninguna jugada legal pierde. Si además está en jaque, es jaque mate; si no lo está, es ahogado, que en el xiangqi también es una derrota y no tablas como en el ajedrez.',
    'A player with no legal move loses. In check, that is checkmate; not in check, it is stalemate, which in xiangqi is also a loss and not a draw as in chess.',
    '轮到走棋却没有合法着法的一方判负：被将军时叫“将死”，没被将军时叫“困毙”。与国际象棋不同，困毙也算输。',
  ],
  'rules.xq.draws.h': ['Repeticiones y tablas', 'Repetition and draws', '重复局面与和棋'],
  'rules.xq.draws.p1': [
    'Cuando la misma posición aparece por tercera vez, la partida termina. Pierde el bando que ha dado jaque con cada una de sus jugadas de la repetición (jaque perpetuo). Si no lo hay, pierde el bando que con cada jugada ha amenazado de nuevo a una misma pieza contraria sin defensa, con una captura que podría hacer de verdad (persecución perpetua). Un Caballo o un Cañón que persigue a un Carro cuenta aunque el Carro esté defendido. No cuentan: las amenazas del General y de los Soldados; las amenazas a un Soldado que no ha cruzado el río; y el ofrecimiento de cambio, cuando Carro amenaza a Carro, Caballo a Caballo o Cañón a Cañón y la pieza amenazada también puede capturar a la otra. Si los dos bandos hacen lo mismo, o ninguno, la partida es tablas.',
    'When the same position occurs for the third time, the game ends. The side that gave check with every one of its moves in the repetition loses (perpetual check). Failing that, the side that, with every move, newly threatened one and the same undefended enemy piece with a capture it could really make loses (perpetual chase). A Horse or Cannon chasing a Chariot counts even when the Chariot is defended. These do not count: threats by a General or a Soldier; threats to a Soldier that has not crossed the river; and an offer to exchange, when Chariot threatens Chariot, Horse threatens Horse or Cannon threatens Cannon and the threatened piece could capture back. If both sides do it, or neither, the game is a draw.',
    '同一局面第三次出现时对局结束。在循环中每步都将军的一方判负（长将）。没有长将时，每步都新形成对对方同一个无保护棋子的、确实可以吃掉的威胁的一方判负（长捉）。马或炮捉车，即使车有保护也算捉。以下不算捉：帅（将）和兵（卒）的威胁；威胁未过河的兵（卒）；兑子，即车对车、马对马、炮对炮，而被威胁的一方也能吃回。双方都犯或都不犯，判和。',
  ],
  'rules.xq.draws.p2': [
    'Para que las partidas no se eternicen, 120 jugadas seguidas (60 de cada bando) sin ninguna captura son tablas. Quien crea la mesa puede cambiar ese límite o quitarlo.',
    'So that games do not go on for ever, 120 moves in a row (60 by each side) without a capture are a draw. Whoever creates the table may change that limit or turn it off.',
    '为避免对局无休止地进行，连续120步（双方各60步）没有吃子即判和。开桌的人可以修改或取消这个限制。',
  ],
  'rules.xq.draws.p3': [
    'Los jugadores también pueden acordar tablas: uno las ofrece y el otro las acepta.',
    'The players may also agree to a draw: one offers it and the other accepts.',
    '双方也可以议和：一方提和，另一方同意即为和棋。',
  ],

  // ------------------------------------------------------------------ sanguo
  'rules.sg.intro': [
    'Tres jugadores, cada uno al frente de un reino: Shu (rojo), Wu (verde) y Wei (azul). No hay equipos: cada uno juega para sí mismo y gana el último reino que conserva su General. Los turnos siguen el orden Shu, Wu, Wei.',
    'Three players, each at the head of a kingdom: Shu (red), Wu (green) and Wei (blue). There are no teams: everyone plays for themselves, and the last kingdom that still has its General wins. Turns go Shu, Wu, Wei.',
    '三人对弈，各执一国：蜀（红）、吴（绿）、魏（蓝）。没有同盟，各自为战，最后保住主帅的一国获胜。走棋顺序为蜀、吴、魏。',
  ],
  'rules.sg.board.h': ['El tablero de 135 puntos', 'The 135-point board', '135个点的棋盘'],
  'rules.sg.board.p1': [
    'El tablero une tres medios tableros de xiangqi de 9 × 5 puntos, 135 puntos en total, cada uno con su palacio. Entre ellos corre un río de tres brazos, y los puntos centrales de las tres orillas forman un pequeño triángulo en el centro.',
    'The board joins three xiangqi half boards of 9 × 5 points, 135 points in all, each with its own palace. A river with three arms runs between them, and the centre points of the three banks form a small triangle in the middle.',
    '棋盘由三个9×5点的半边象棋盘组成，共135个点，各有自己的九宫。三个半盘之间是一条三叉河，三条河岸的中点在棋盘中央围成一个小三角形。',
  ],
  'rules.sg.river.h': ['Cómo se cruza el río', 'Crossing the river', '如何过河'],
  'rules.sg.river.p1': [
    'Cada brazo del río une la mitad derecha de una orilla con la mitad izquierda de la orilla del reino siguiente, como en un tablero normal. Por eso las columnas f a i de cada reino llevan al reino siguiente, las columnas a a d al anterior, y la columna central e a los dos: quien sube por ella llega al vértice del triángulo, donde la línea se abre en dos. Ninguna línea rodea el triángulo: tras cruzar uno de sus lados se sigue bajando por la columna central del otro reino.',
    'Each arm of the river joins the right half of one bank to the left half of the next kingdom’s bank, as on an ordinary board. So files f to i of a kingdom lead into the next kingdom, files a to d into the previous one, and the centre file e into both: going up it you reach the tip of the triangle, where the line splits in two. No line runs round the triangle: after crossing one of its sides you carry on down the other kingdom’s centre file.',
    '每条河把一国河岸的右半边与下一国河岸的左半边连起来，就像普通棋盘一样。因此每国的f到i路通向下一国，a到d路通向上一国，中路e则通向两国：沿中路上行到三角形的顶点，线路在那里一分为二。没有线路绕着三角形走：越过三角形的一条边之后，就沿另一国的中路继续往下走。',
  ],
  'rules.sg.diagram.tip': [
    'En el vértice del triángulo las líneas se abren: prueba con un Carro y con un Soldado.',
    'At the tip of the triangle the lines split: try a Chariot and a Soldier.',
    '三角形顶点处线路分叉：分别试试车和兵。',
  ],
  'rules.sg.diagram.horse': [
    'El Caballo cruza el río; un Soldado en su pata le cierra los dos destinos del otro reino.',
    'The Horse crosses the river too; a Soldier on its leg closes both of its points in the other kingdom.',
    '马可以跨河走日；河岸上有子蹩马腿时，对岸的两个落点都走不了。',
  ],
  'rules.sg.diagram.flag': [
    'El Abanderado avanza dos puntos rectos y uno en diagonal hacia fuera, también al otro lado del río.',
    'The Flag bearer goes two points straight on and one diagonally outwards, across the river too.',
    '旗手先直走两步，再向外斜走一步，也可以这样走过河。',
  ],
  'rules.sg.pieces.h': ['Las piezas', 'The pieces', '棋子'],
  'rules.sg.pieces.p1': [
    'Cada reino tiene las 16 piezas del xiangqi, que mueven como siempre siguiendo las líneas del tablero unido. El General y los Consejeros no salen de su palacio y los Elefantes no cruzan el río. Los Soldados avanzan hacia su orilla y la cruzan por el brazo que tienen delante; desde el vértice pueden pasar a cualquiera de los otros dos vértices. En un reino ajeno el Soldado avanza hacia el fondo de ese reino o se mueve de lado, sin volver nunca hacia el río.',
    'Each kingdom has the 16 xiangqi pieces, which move as usual along the lines of the joined board. The General and the Advisors stay in their palace and the Elephants never cross the river. Soldiers advance to their bank and cross the arm in front of them; from the tip they may step to either of the other two tips. In another kingdom a Soldier moves towards that kingdom’s back rank or sideways, never back towards the river.',
    '每国各有象棋的16个棋子，沿着相连的棋盘线按原来的走法行走。帅和仕不出九宫，相不过河。兵向本方河岸前进，再渡过面前的那条河；在顶点上可以走到另外两个顶点中的任何一个。进入他国以后，兵向该国底线前进或横走，不能再往河边退。',
  ],
  'rules.sg.flags.h': ['Los abanderados (opcionales)', 'Flag bearers (optional)', '旗手（可选）'],
  'rules.sg.flags.p1': [
    'Salvo que la mesa los desactive, cada reino tiene además dos Abanderados en las esquinas delanteras de su palacio. Avanzan dos puntos en línea recta y luego uno en diagonal hacia fuera, sin saltar: si alguno de los dos puntos rectos está ocupado, ese camino se cierra.',
    'Unless the table turns them off, each kingdom also has two Flag bearers on the front corners of its palace. They go two points straight on and then one diagonally outwards, without jumping: if either of the two straight points is taken, that way is closed.',
    '除非棋桌关闭了这个选项，每国在九宫前方两角还各有一个旗手。旗手先直走两步，再向外斜走一步，不能越子：直走的两个点中任何一点有子，这条路就走不通。',
  ],
  'rules.sg.check.h': ['Jaque y generales enfrentados', 'Check and facing Generals', '将军与将帅照面'],
  'rules.sg.check.p1': [
    'Ninguna jugada puede dejar al propio General atacado por una pieza de otro reino, ni frente a frente con otro General en una línea libre, también a través del triángulo. Si la jugada de un rival deja expuesto a un General, el otro rival puede capturarlo en su turno.',
    'No move may leave your own General attacked by a piece of another kingdom, or facing another General along an open line, through the triangle too. If one rival’s move leaves a General exposed, the other rival may capture it on its turn.',
    '任何一步都不能让己方主帅受到他国棋子的攻击，也不能让它与他国主帅在中间无子的直线上照面，穿过三角形也算。如果一国的走法使某个主帅暴露，另一国轮到时可以吃掉它。',
  ],
  'rules.sg.defeat.h': ['Reinos derrotados', 'Defeated kingdoms', '亡国'],
  'rules.sg.defeat.p1': [
    'Un reino cuyo General es capturado queda derrotado en el acto, y el reino que lo capturó se queda con todas sus demás piezas. Un reino que al empezar su turno no tiene ninguna jugada legal, esté o no en jaque, también queda derrotado: su General sale del tablero y sus piezas pasan al reino que jugó el último.',
    'A kingdom whose General is captured is defeated at once, and the capturing kingdom takes over all its other pieces. A kingdom that has no legal move at the start of its turn, in check or not, is defeated too: its General leaves the board and its pieces go to the kingdom that moved last.',
    '主帅被吃的一国立即灭亡，它的其余棋子全部归吃帅的一国所有。轮到走棋时没有合法着法的一国，无论是否被将军，也立即灭亡：它的主帅移出棋盘，棋子归上一步走棋的一国。',
  ],
  'rules.sg.defeat.p2': [
    'Las piezas conquistadas siguen moviéndose como las de su reino de origen: sus Elefantes no salen de su mitad del tablero y sus Soldados avanzan como antes. Los reinos derrotados ya no juegan y su turno se salta.',
    'Conquered pieces keep moving as pieces of their home kingdom: their Elephants stay in their own half of the board and their Soldiers advance as before. Defeated kingdoms no longer play and their turn is skipped.',
    '被收编的棋子仍按原国的规则行走：相不出原国的半盘，兵照原来的方向前进。亡国不再走棋，轮到它时直接跳过。',
  ],
  'rules.sg.end.h': ['Victoria, tablas y abandono', 'Winning, draws and leaving', '胜负、和棋与离开'],
  'rules.sg.end.p1': [
    'Gana el último reino que conserva su General. La partida es tablas cuando la misma posición aparece por tercera vez (aquí no se castiga el jaque perpetuo) o tras 180 jugadas seguidas, 60 rondas, sin ninguna captura ni derrota.',
    'The last kingdom with its General on the board wins. The game is a draw when the same position occurs for the third time (perpetual check is not punished here) or after 180 moves in a row, 60 rounds, without any capture or defeat.',
    '最后保住主帅的一国获胜。同一局面第三次出现（这里不判长将），或连续180步（60轮）既无吃子也无亡国，判和。',
  ],
  'rules.sg.end.p2': [
    'Un reino que sigue en juego y abandona, agota su tiempo o se va de la mesa termina la partida: ganan los demás reinos en juego, y si son dos comparten la victoria. Un reino ya derrotado puede irse sin que eso cambie nada.',
    'A kingdom still in the game that resigns, runs out of time or leaves the table ends the game: the other kingdoms still in the game win, and if there are two they share the victory. A kingdom already defeated may leave without changing anything.',
    '尚未灭亡的一国认输、超时或离开棋桌，对局立即结束：其余未亡的国获胜，如果有两国，就共享胜利。已经灭亡的国离开不影响对局。',
  ],
  'rules.sg.end.p3': [
    'El reloj funciona como en el xiangqi: cada reino tiene su tiempo, que solo corre en su turno. Por ahora no se pueden acordar tablas.',
    'Clocks work as in xiangqi: each kingdom has its own time, which runs only on its turn. Draws by agreement are not offered yet.',
    '计时方式与象棋相同：每国各有用时，只在自己走棋时减少。目前还不能议和。',
  ],

  // ------------------------------------------------------------------ banqi
  'rules.bq.intro': [
    'El banqi, o ajedrez oscuro, se juega con las 32 piezas del xiangqi sobre medio tablero de 4 × 8 casillas, y aquí las piezas van dentro de las casillas. Todas empiezan boca abajo y mezcladas, una en cada casilla, así que nadie sabe dónde está cada una. Seguimos las reglas de Taiwán.',
    'Banqi, dark chess, is played with the 32 xiangqi pieces on half a board of 4 × 8 squares, and here the pieces stand inside the squares. They all start face down and shuffled, one on each square, so nobody knows where anything is. We play the Taiwan rules.',
    '暗棋用象棋的32个棋子，在4×8格的半个棋盘上下，棋子放在格子里。开局时所有棋子背面朝上，打乱后每格一个，谁也不知道哪个子在哪里。本站采用台湾规则。',
  ],
  'rules.bq.turns.h': ['Turnos y colores', 'Turns and colours', '走棋与颜色'],
  'rules.bq.turns.p1': [
    'En su turno, cada jugador hace una de estas tres cosas: dar la vuelta a una pieza boca abajo, sea del color que sea; mover una pieza propia boca arriba una casilla en horizontal o vertical a una casilla vacía; o capturar.',
    'On each turn a player does one of three things: turn over a face-down piece, whatever its colour; move one of their own face-up pieces one square along a row or column to an empty square; or capture.',
    '每一回合只能做三件事之一：翻开一个暗子，不论是哪一方的；把己方一个明子横向或纵向走一格到空格上；或者吃子。',
  ],
  'rules.bq.turns.p2': [
    'La primera jugada siempre es dar la vuelta a una pieza, y decide los colores: quien la destapa juega toda la partida con el color de esa pieza, y el otro jugador con el otro color. A partir de ahí los turnos se alternan.',
    'The first turn is always a flip, and it decides the colours: the player who flips plays the colour of that piece for the whole game, and the other player takes the other colour. From then on turns alternate.',
    '第一步必须翻子，并由此决定颜色：翻子的人整局执所翻棋子的颜色，对方执另一种颜色。此后双方轮流走棋。',
  ],
  'rules.bq.ranks.h': ['Rangos y capturas', 'Ranks and captures', '大小与吃子'],
  'rules.bq.ranks.p1': [
    'Las piezas tienen rangos; de mayor a menor: General, Consejero, Elefante, Carro, Caballo y Soldado. Una pieza captura moviéndose a una casilla vecina ocupada por una pieza contraria boca arriba de igual o menor rango, con tres excepciones: el Soldado captura al General, el General no puede capturar al Soldado y el Soldado no puede capturar al Cañón. Las piezas boca abajo no se pueden capturar.',
    'Pieces have ranks; from highest to lowest: General, Advisor, Elephant, Chariot, Horse and Soldier. A piece captures by moving onto a neighbouring square held by a face-up enemy piece of equal or lower rank, with three exceptions: the Soldier takes the General, the General cannot take the Soldier, and the Soldier cannot take the Cannon. Face-down pieces cannot be captured.',
    '棋子有大小之分，从大到小依次为：帅（将）、仕（士）、相（象）、车、马、兵（卒）。吃子时走到相邻的格子，吃掉对方同级或更小的明子，但有三个例外：兵（卒）可以吃帅（将），帅（将）不能吃兵（卒），兵（卒）不能吃炮。暗子不能被吃。',
  ],
  'rules.bq.ranks.p2': [
    'El Cañón es especial: se mueve una casilla como las demás piezas, pero solo captura saltando exactamente una pieza en línea recta, a cualquier distancia; la pieza que salta puede estar boca arriba o boca abajo y ser de cualquier color. Así puede capturar cualquier pieza contraria boca arriba. A él lo pueden capturar todas las piezas menos el Soldado.',
    'The Cannon is special: it moves one square like every other piece, but it captures only by jumping over exactly one piece in a straight line, at any distance; the piece it jumps may be face up or face down and of either colour. That way it can capture any face-up enemy piece. Every piece except the Soldier can capture it.',
    '炮比较特殊：平时和其他棋子一样走一格，但吃子时必须沿直线隔着一个子跳过去吃，距离不限；中间那个子明暗、颜色都不限。这样炮可以吃对方任何明子。除了兵（卒），其他棋子都可以吃炮。',
  ],
  'rules.bq.captures.caption': ['Quién captura a quién (✓)', 'Who captures whom (✓)', '谁能吃谁（✓）'],
  'rules.bq.captures.corner': ['captura a', 'takes', '吃'],
  'rules.bq.diagram.captures': [
    'Pulsa una pieza boca arriba para ver qué puede capturar: el Soldado toma al General y el Cañón salta.',
    'Tap a face-up piece to see what it can capture: the Soldier takes the General and the Cannon jumps.',
    '点击一个明子，看看它能吃什么：兵可以吃将，炮隔子跳吃。',
  ],
  'rules.bq.end.h': ['Fin de la partida', 'End of the game', '终局'],
  'rules.bq.end.p1': [
    'Gana quien captura todas las piezas contrarias o deja al rival sin ninguna jugada posible en su turno, sin nada que destapar ni que mover. No hay jaque: el General es solo la pieza de mayor rango. Hay tablas tras 180 jugadas seguidas sin ninguna vuelta ni captura, y cuando la misma posición aparece por tercera vez.',
    'You win by capturing every enemy piece, or by leaving your opponent with no possible move on their turn, nothing to flip and nothing that can move. There is no check: the General is just the highest rank. The game is a draw after 180 turns in a row without a flip or a capture, and when the same position occurs for the third time.',
    '吃光对方所有棋子，或使对方轮到走棋时无棋可走（没有暗子可翻，也没有子能动），即获胜。暗棋没有将军，帅（将）只是最大的子。连续180步既无翻子也无吃子，或同一局面第三次出现，判和。',
  ],
  'rules.bq.end.p2': [
    'Quien abandona, agota su tiempo o se va de la mesa pierde; si ocurre antes de la primera vuelta, cuando aún no hay colores, gana el otro asiento. También se pueden acordar tablas.',
    'A player who resigns, runs out of time or leaves the table loses; if that happens before the first flip, when there are no colours yet, the other seat wins. A draw may also be agreed.',
    '认输、超时或离开棋桌的一方判负；如果这发生在第一次翻子之前（还没有分颜色），则判另一个座位获胜。双方也可以议和。',
  ],
};
