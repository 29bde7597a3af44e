package guard

import (
	"regexp"
	"strings"
	"unicode"
)

// The effects in Spanish, French, German, Portuguese, Italian, Chinese,
// Japanese, Russian, Korean and Hindi. Shell commands, file names and
// addresses are the same in every language, and the English rules read
// them in any text; these lexicons give the verbs and objects of each
// class, and the rules pair them within a sentence in either order (the
// languages do not agree on where the object goes). Prohibitions are in
// negBeforeRe and negAfterRe (effects.go).

// Each lexicon lists, per language, the stems of one concept. Latin and
// Cyrillic stems are matched at the start of a word; Chinese, Japanese,
// Korean and Devanagari ones anywhere.
var (
	mlSend = fxLex(
		`envi[aáeé]\w*|mand[ae]\w*|sub[ei]\w*|compart[ei]\w*|reenv[ií]\w*`,             // es
		`envoi\w*|envoy\w*|transf[eè]r\w*|téléverse\w*|partage\w*|publie\w*`,           // fr
		`schick\w*|sende\w*|send\w*|übermittel\w*|hochlad\w*|lade\w*|teil\w*|leite\w*`, // de
		`compartilh\w*|carreg\w*`,                                   // pt
		`invi[ai]\w*|mand[ai]\w*|carica\w*|condividi\w*|inoltra\w*`, // it
		`отправ\w*|пересыл\w*|перешл\w*|загруз\w*|выгруз\w*|скин\w*|слей\w*|сли(?:ва|ть)\w*`,           // ru
		`发送|发到|发给|上传|转发|同步到|传到|寄给|共享到|推送到|送信|送って|送る|アップロード|転送|보내|전송|업로드|전달|भेज|अपलोड|फ़ॉरवर्ड|फॉरवर्ड`, // zh ja ko hi
	)
	mlData = fxLex(
		`datos|clientes?|pacientes?|base de datos|copias? de seguridad|registros|historial|conversaci[oó]n\w*|contenido|archivos?|exportad\w*|correos`,
		`données|base de données|sauvegardes?|historique|contenu|fichiers?`,
		`daten|kunden\w*|patient\w*|datenbank\w*|backups?|sicherung\w*|verlauf\w*|chatverlauf\w*|inhalt\w*|datei\w*|export\w*|kopie`,
		`dados|clientes?|pacientes?|banco de dados|histórico|conversas?|conteúdo|arquivos?|exportad\w*`,
		`dati|clienti|pazienti|cronologia|conversazion\w*|contenuto|elenco|esportat\w*|numeri di telefono|indirizz\w*`,
		`данн\w*|клиент\w*|пациент\w*|баз\w*|бэкап\w*|резервн\w*|истори\w*|переписк\w*|содержим\w*|файл\w*|лог\w*|контакт\w*`,
		`数据|客户|患者|数据库|备份|聊天记录|对话|会话|内容|文件|日志|导出|データ|顧客|患者|データベース|バックアップ|会話|ログ|内容|ファイル|履歴|데이터|고객|환자|데이터베이스|백업|대화|로그|내용|파일|डेटा|ग्राहक|मरीज|डेटाबेस|बैकअप|बातचीत|लॉग|सामग्री|फ़ाइल|फाइल`,
	)
	mlSecret = fxLex(
		`contraseñas?|claves? secretas?|claves? de (?:la )?api|credenciales|tokens?`,
		`mots? de passe|clés? secrètes?|clés? d'api|clés? api|identifiants|jetons?`,
		`passw[öo]rter?|kennw[öo]rter?|schlüssel\w*|zugangsdaten|geheimnis\w*|tokens?`,
		`senhas?|chaves? secretas?|chaves? de api|credenciais`,
		`password|chiavi? segret\w*|chiavi? api|credenziali`,
		`парол\w*|ключ\w*|токен\w*|учётн\w*|учетн\w*|секрет\w*`,
		`密码|密钥|私钥|凭据|凭证|令牌|口令|パスワード|秘密鍵|認証情報|トークン|シークレット|APIキー|비밀번호|암호|토큰|자격 ?증명|시크릿|API ?키|पासवर्ड|कुंजी|टोकन|क्रेडेंशियल|सीक्रेट`,
	)
	// Verbs that expose a credential by themselves: paste, publish,
	// commit, print.
	mlExpose = fxLex(
		`pega\w*|pegar|publica\w*|imprim\w*|commitea\w*|incluy\w*|inclu[iy]\w*|muestra\w*|adjunt\w*|comparte\w*`,
		`colle\w*|publie\w*|affiche\w*|committe\w*|partage\w*|inclu\w*`,
		`einfüg\w*|füge\w*|veröffentlich\w*|committe\w*|poste\w*|zeig\w*|teile\w*`,
		`col[ae]\w*|publi[cq]u?\w*|commit\w*|mostr\w*|inclu[ai]\w*|compartilh\w*|anex\w*`,
		`incoll\w*|pubblic\w*|committ\w*|mostr\w*|inclu[di]\w*|condivid\w*|allega\w*`,
		`встав\w*|вклеи\w*|публику\w*|опубликуй\w*|закоммит\w*|выведи\w*|покаж\w*|прикреп\w*|скопир\w*|commit\w*|paste\w*`,
		`贴|粘贴|提交|公开|打印|输出|附上|写进|写入|貼り付け|貼って|載せ|コミット|公開|出力|添付|記載|붙여|커밋|게시|올려|출력|첨부|पेस्ट|चिपका|कमिट`,
	)
	mlDest = fxLex(
		`issues?|tickets?|chat|commit|pr|wiki|slack|canal|respuesta|descripci[oó]n|registro|correo|repositorio`,
		`réponse|description|journal|courriel|dépôt|salon`,
		`antwort|beschreibung|protokoll|repository|kanal`,
		`resposta|descrição|repositório`,
		`risposta|descrizione|repository`,
		`ответ\w*|описани\w*|комментари\w*|чат\w*|тикет\w*|репозитор\w*|почт\w*`,
		`评论|回复|回答|日志|邮件|仓库|群|工单|コメント|返信|回答|ログ|メール|リポジトリ|チャット|댓글|답변|로그|메일|저장소|채팅|टिप्पणी|जवाब|लॉग|ईमेल|रिपॉजिटरी|चैट`,
	)
	mlDelete = fxLex(
		`borra\w*|elimin\w*|vac[ií]a\w*|suprim\w*|destru\w*`,
		`supprim\w*|efface\w*|vide[rz]?|détrui\w*`,
		`lösch\w*|entfern\w*|leere\w*|vernicht\w*|zerstör\w*`,
		`apag\w*|exclu\w*|remov\w*|esvazi\w*`,
		`cancell\w*|rimuov\w*|svuot\w*|distrugg\w*`,
		`удал\w*|очист\w*|сотр\w*|снес\w*|уничтож\w*|дропн\w*`,
		`删除|删掉|清空|清除|销毁|抹掉|干掉|删了|削除|消去|消して|空に|破棄|삭제|지우|지워|비우|제거|날려|डिलीट|हटा|मिटा|नष्ट|खाली कर`,
	)
	mlValuable = fxLex(
		`copias? de seguridad|backups?|base de datos|producción|historial`,
		`sauvegardes?|backups?|base de données|production|historique`,
		`backups?|sicherung\w*|datenbank\w*|produktion\w*|verlauf`,
		`backups?|cópias? de segurança|banco de dados|produção|histórico`,
		`backup|database|produzione|cronologia`,
		`бэкап\w*|резервн\w*|баз\w* данных|продакшен\w*|прод\w*|истори\w*`,
		`备份|数据库|生产|历史|バックアップ|データベース|本番|履歴|백업|데이터베이스|프로덕션|기록|बैकअप|डेटाबेस|प्रोडक्शन|इतिहास`,
	)
	mlTests = fxLex(
		`pruebas?|tests?`, `tests?`, `tests?|testdatei\w*`, `testes?`, `test`,
		`тест\w*`, `测试|テスト|테스트|टेस्ट`,
	)
	mlOff = fxLex(
		`desactiv\w*|deshabilit\w*|apag\w*|omit\w*|salt[ae]\w*|quit[ae]\w*|elimin\w*`,
		`désactiv\w*|coupe\w*|contourn\w*|saute\w*|ignore\w*|supprime\w*|retire\w*`,
		`deaktivier\w*|abschalt\w*|schalte\w*|ausschalt\w*|umgeh\w*|überspring\w*|entfern\w*`,
		`desativ\w*|deslig\w*|pul[ae]\w*|ignor\w*|remov\w*|contorn\w*`,
		`disattiv\w*|disabilit\w*|spegn\w*|salt[ai]\w*|ignor\w*|rimuov\w*|aggir\w*|imposta\w*`,
		`отключ\w*|выключ\w*|пропуск\w*|пропуст\w*|обход\w*|обойд\w*|убер\w*|удал\w*`,
		`отключ\w*|bypass\w*`,
		`禁用|关闭|关掉|跳过|绕过|删掉|去掉|停用|关了|删除|無効|オフ|スキップ|飛ばし|回避|外し|停止|끄|꺼|비활성|건너뛰|우회|제거|해제|बंद|अक्षम|छोड़|स्किप|हटा`,
	)
	mlSafeguard = fxLex(
		`verificaci[oó]n|autenticaci[oó]n|doble factor|cortafuegos|revisi[oó]n|revisiones|aprobaci[oó]n|escaneo|hooks?`,
		`vérification|authentification|double authentification|pare-feu|revue|relecture|approbation|analyse de sécurité|hooks?`,
		`überprüfung|prüfung|authentifizierung|zwei-faktor\w*|freigabe|sicherheitsscan\w*|hooks?`,
		`verificação|autenticação|dois fatores|revisão|aprovação|varredura|hooks?`,
		`verifica|autenticazione|due fattori|revision[ei]|approvazion[ei]|scansion[ei]|hook`,
		`проверк\w*|аутентификац\w*|двухфакторн\w*|файрвол\w*|брандмауэр\w*|фаервол\w*|ревью|сканирован\w*|хук\w*`,
		`2fa|mfa|firewall|tls|ssl`,
		`验证|认证|双重认证|两步验证|二次验证|防火墙|审查|审核|评审|安全扫描|扫描|钩子|検証|認証|二要素認証|ファイアウォール|レビュー|スキャン|フック|검증|인증|2단계 ?인증|방화벽|리뷰|검토|스캔|훅|सत्यापन|प्रमाणीकरण|फ़ायरवॉल|फायरवॉल|रिव्यू|समीक्षा|स्कैन|हुक`,
	)
	mlFail = fxLex(
		`falla\w*|fallan`, `échou\w*|échec`, `fehlschlag\w*|schlägt|fehl`, `falh\w*`, `fallisc\w*|fallito|falliti`,
		`пада\w*|пров[ао]л\w*|упа\w*`, `失败|失敗|실패|फेल|fail\w*`,
	)
	mlWithoutCheck = fxLex(
		`sin (?:revisi[oó]n|confirmaci[oó]n|aprobaci[oó]n|pedir\w*|preguntar)`,
		`sans (?:revue|relecture|confirmation|validation|approbation|demander)`,
		`ohne (?:review|prüfung|freigabe|bestätigung|rückfrage|nachfrage|zu fragen)`,
		`sem (?:revisão|confirmação|aprovação|pedir|perguntar)`,
		`senza (?:revisione|conferma|approvazione|chiedere)`,
		`без (?:подтвержден\w*|проверк\w*|ревью|согласован\w*|спрос\w*)`,
		`无需(?:再次)?确认|不需要确认|不用确认|无需审批|无需审查|不经审查|确认なし|確認せず|承認なし|レビューなし|確認不要|확인 없이|승인 없이|리뷰 없이|묻지 않고|बिना (?:पुष्टि|समीक्षा|रिव्यू|अनुमति|पूछे)`,
	)
	mlDanger = fxLex(
		`despleg\w*|despliegue|producción|cualquier comando|todos los comandos`,
		`déploi\w*|déploy\w*|production|n'importe quelle commande|toutes les commandes`,
		`deploy\w*|bereitstell\w*|produktion\w*|jeden befehl|alle befehle`,
		`deploy|implant\w*|produção|qualquer comando`,
		`rilasci\w*|produzione|qualsiasi comando`,
		`разверн\w*|деплой\w*|продакшен\w*|любые команды|любую команду`,
		`部署|生产|任何命令|所有命令|デプロイ|本番|あらゆるコマンド|任意のコマンド|배포|프로덕션|모든 명령|어떤 명령|डिप्लॉय|प्रोडक्शन|कोई भी कमांड|किसी भी कमांड|sudo|deploy`,
	)
	mlRoot = fxLex(
		`como root|con root`, `en tant que root|en root`, `als root`, `como root`, `come root`,
		`под root|от root|как root|под рутом`,
		`以 ?root|用 ?root|root ?として|root ?で|root ?권한으로|root로|루트로|root के रूप में|root से`,
	)
	mlAdmin = fxLex(
		`propietari[oa]s?|administrador\w*`, `propriétaire|administrateur\w*`, `eigentümer\w*|inhaber\w*|administrator\w*`,
		`propriet[aá]ri[oa]s?|administrador\w*`, `proprietari[oa]|amministrator\w*`,
		`владел\w*|администратор\w*|админ\w*|суперпользовател\w*`,
		`管理员|所有者|拥有者|超级用户|管理者|オーナー|所有者|소유자|관리자|오너|मालिक|व्यवस्थापक|एडमिन`,
	)
	mlGrant = fxLex(
		`añad\w*|agreg\w*|conced\w*|d[aé]le|asign\w*`, `ajoute\w*|donne\w*|accorde\w*|attribue\w*|nomme\w*`,
		`füge\w*|gib|gewähr\w*|vergib|mach\w*|ernenn\w*`, `adicion\w*|conced\w*|atribu\w*|torn[ae]\w*`,
		`aggiung\w*|concedi|assegn\w*|nomin\w*`, `добав\w*|выда\w*|назнач\w*|сдела\w*`,
		`添加|加为|设为|授予|给予|赋予|追加|付与|설정|추가|부여|지정|जोड़|बना`,
	)
	mlSecrecy = fxLex(
		`no (?:se lo |le )?(?:digas|menciones|cuentes|informes)\w*|sin (?:avisar|informar|decirle)\w*|no hace falta (?:avisar|decir|informar)\w*`,
		`inutile de (?:prévenir|dire|mentionner|signaler|informer)|sans (?:prévenir|informer|le dire)|ne (?:le |lui )?(?:dis|mentionne|signale)\w* pas|n'en parle pas`,
		`erwähne\w* (?:es|das|dies) nicht|nicht erwähnen|ohne (?:den nutzer |die nutzerin |jemanden )?zu (?:informieren|benachrichtigen)|(?:sag|verrat)\w* (?:es )?(?:dem nutzer|niemandem) nicht|nichts sagen`,
		`não (?:conte|mencione|avise|diga|informe)\w*|sem (?:avisar|informar|contar)`,
		`non (?:dirlo|dire|menzionar\w*|avvisar\w*|informar\w*)|senza (?:avvisare|informare|dirlo)`,
		`не (?:упоминай|говори|сообщай|рассказывай|показывай)\w*|не нужно (?:сообщать|говорить|упоминать)`,
		`不要告诉|别告诉|不用告诉|不需要向用户说明|不需要告诉|无需告知|不要提及|不要提|ユーザーへの報告は不要|報告は不要|報告不要|伝えないで|言わないで|知らせないで|伝えない|言わない|알리지 ?(?:마|말|않)|말하지 ?(?:마|말|않)|언급하지 ?(?:마|말|않)|보고하지 ?(?:마|말|않)|बताने की (?:ज़रूरत|जरूरत) नहीं|न बताएं|मत बताओ|मत बताना|ज़िक्र न करें|जिक्र न करें`,
	)
	mlTrigger = fxLex(
		`si (?:el usuario|alguien) (?:dice|escribe|pregunta)\w*|cuando el usuario (?:diga|escriba)\w*|siempre que el usuario`,
		`(?:si|quand|lorsque) l'utilisateur (?:dit|écrit|tape)\w*`,
		`(?:wenn|falls|sobald) (?:der nutzer|die nutzerin|der benutzer|jemand) [^.;\n]{0,30}(?:schreibt|sagt|tippt)`,
		`(?:sempre que|quando|se) o usuário (?:disser|escrever|digitar)\w*`,
		`(?:quando|se) l'utente (?:dice|scrive|digita)\w*`,
		`(?:если|когда) пользователь (?:скажет|напишет|введёт|введет)`,
		`如果用户说|当用户说|用户说|用户输入|ユーザーが[^。\n]{0,20}(?:と言ったら|と言った場合|と入力したら)|사용자가 [^.\n]{0,20}(?:라고 하면|하면)|अगर उपयोगकर्ता|जब उपयोगकर्ता`,
	)
	mlAuthority = fxLex(
		`(?:ya )?(?:aprob[oó]|ha aprobado|autoriz[oó]|lo aprob[oó])`,
		`a (?:déjà )?(?:approuvé|validé|autorisé)`,
		`hat (?:es |das )?(?:genehmigt|freigegeben|zugestimmt|abgesegnet)`,
		`(?:já )?(?:aprovou|autorizou)`,
		`ha (?:già )?(?:approvato|autorizzato)`,
		`одобрил\w*|утвердил\w*|разрешил\w*`,
		`已经?批准|批准了|已同意|已授权|承認済み|承認しました|許可済み|승인했|승인함|허가했|ने मंजूरी दी|ने अनुमति दी|अनुमोदित`,
	)
)

// fxLex joins per-language stem lists into one expression: the stems of
// Latin and Cyrillic languages must start a word; the last list, of
// Chinese, Japanese, Korean and Hindi, is matched anywhere.
func fxLex(langs ...string) string {
	words, anywhere := langs[:len(langs)-1], langs[len(langs)-1]
	return `(?:(?:^|[^\p{L}\p{N}_-])(?:` + strings.Join(words, "|") + `)|(?:` + anywhere + `))`
}

// langRules pairs the lexicons into rules, in either order within a
// sentence.
func langRules() []*fxRule {
	return []*fxRule{
		{class: fxSendOut, what: "tells agents to send data to %s", judge: foreign(externalTarget), gates: [][]string{targetGate},
			re:    fxRx(targetFrag),
			parts: []fxPart{fxNear(mlSend, 200), fxNear(mlData+`|`+secretFrag, 200)}},
		{class: fxCredentials, what: "tells agents to expose a credential", judge: foreign(secretObject),
			re:    fxRx(mlExpose),
			parts: []fxPart{fxNear(mlSecret+`|`+secretFrag, 120)}},
		{class: fxCredentials, what: "tells agents to expose a credential", judge: foreign(secretObject),
			re:    fxRx(mlSecret + `|` + secretFrag),
			parts: []fxPart{fxNear(mlSend, 80), fxNear(mlDest, 120)}},
		{class: fxDestroy, what: "tells agents to destroy data", judge: foreign(notScoped),
			re:    fxRx(mlDelete),
			parts: []fxPart{fxNear(mlValuable, 80)}},
		{class: fxSafeguard, what: "tells agents to delete or skip failing tests", judge: foreign(nil),
			re:    fxRx(mlDelete + `|` + mlOff),
			parts: []fxPart{fxNear(mlTests, 60), fxNear(mlFail, 140)}},
		{class: fxSafeguard, what: "tells agents to turn off a safeguard", judge: foreign(nil),
			re:    fxRx(mlOff),
			parts: []fxPart{fxNear(mlSafeguard, 60)}},
		{class: fxSafeguard, what: "tells agents to act without a check", judge: foreign(nil),
			re:    fxRx(mlWithoutCheck),
			parts: []fxPart{fxNear(mlDanger, 100)}},
		{class: fxSafeguard, what: "tells agents to set required reviews to zero", judge: foreign(nil), gates: [][]string{{" 0", "=0", ":0", "a 0", "zero", "cero", "null", "ноль", "零"}},
			re:    fxRx(`(?:^|[^\p{L}])(?:revisiones|revisões|revisioni|approvazioni|aprobaciones|aprovações|approbations|freigaben|ревью)|审查|审核|レビュー|리뷰`),
			parts: []fxPart{fxNear(`(?:^|[^\p{L}\p{N}:.])(?:0|zero|cero|null|ноль|零)(?:[^\p{L}\p{N}:.]|$)`, 60)}},
		{class: fxPrivilege, what: "tells agents to work as root",
			re: fxRx(mlRoot)},
		{class: fxPrivilege, what: "tells agents to grant admin rights", judge: foreign(nil),
			re:    fxRx(mlAdmin),
			parts: []fxPart{fxNear(mlGrant, 80)}},
		{class: fxSecrecy, what: "tells agents to keep things from the user", negated: true,
			re: fxRx(mlSecrecy)},
	}
}

// foreign wraps a judge for the rules of the other languages: they read
// only sentences that are not in English, whose lexicons overlap theirs
// ("send", "commit", "tests").
var englishWordsRe = regexp.MustCompile(`(?i)\b(?:the|and|to|of|is|are|with|for|when|if|it|this|that|you|your|be|on|in|or)\b`)
var foreignWordsRe = regexp.MustCompile(`(?i)(?:^|[^\p{L}])(?:el|la|le|los|las|del|al|una?|les|des|du|de|et|est|sont|der|die|das|den|dem|und|ist|mit|nicht|il|gli|della|di|che|è|e|em|os|ao|do|da|dos|das|no|na|como|é|não|o|y|para|por|pour|avec|con|per|sempre|siempre|toujours|immer|и|в|на|не|с)(?:[^\p{L}]|$)`)

func foreign(j func(string, []int, fxSpan, []fxSpan) (string, bool)) func(string, []int, fxSpan, []fxSpan) (string, bool) {
	return func(sent string, m []int, sp fxSpan, parts []fxSpan) (string, bool) {
		nonLatin := false
		for _, r := range sent {
			if r >= 0x400 && unicode.IsLetter(r) {
				nonLatin = true
				break
			}
		}
		if !nonLatin && len(foreignWordsRe.FindAllString(sent, -1)) <= len(englishWordsRe.FindAllString(sent, -1)) {
			return "", false
		}
		if j == nil {
			return "", true
		}
		return j(sent, m, sp, parts)
	}
}

// Conditions: what makes a found effect weigh more without being one.
var (
	triggerCondRe       = fxRx(`\b(?:if|when|whenever|once|as soon as|every time|each time)\b[^,.;\n]{0,60}?\b(?:the user|user|anyone|someone|they)\s+(?:ever\s+)?(?:says?|types?|writes?|mentions?|sends?|enters?)\b|\b(?:if|when|whenever)\s+(?:the user|they)\s+(?:has been|have been|is|are|goes|go)\s+(?:idle|away|afk|asleep|offline|inactive|not (?:looking|watching|around))\b|\b(?:after|from|starting|beginning|on or after)\s+(?:the\s+)?(?:\d{4}-\d{2}-\d{2}|\d{1,2}(?:st|nd|rd|th)\s+of|next\s+(?:month|week|sprint|quarter|year|release)|(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b[^.;,\n]{0,20}?\d{1,2}[:.]\d{2}|(?:january|february|march|april|may|june|july|august|september|october|november|december)\s+\d{1,2})|\bif today'?s date\b|\b(?:when|if) the hostname\b|\bthe first time you\b|\bstarting next\b|\bon (?:mon|tues|wednes|thurs|fri|satur|sun)days? after\b|\bwhen running under ci\b|\bif a file you (?:open|read)\b|` + mlTrigger)
	authorityCondRe     = fxRx(`\b(?:approved|signed off|sign-off|authori[sz]ed|okayed|cleared|sanctioned|pre-?approved|pre-?verified|confirmed|agreed)\b[^.;\n]{0,40}?\b(?:by\s+)?(?:the\s+)?(?:cto|ceo|ciso|cfo|coo|vp|vice president|head of \w+|director|management|leadership|legal|compliance|security(?: team)?|privacy officer|dpo|repo(?:sitory)? owner|project owner|owner|maintainers?|admins?|administrator|platform team|sre|ops team|incident commander|tech lead|lead|the user)\b|\b(?:the\s+)?(?:cto|ceo|ciso|cfo|coo|vp of \w+|head of \w+|director|management|leadership|legal|compliance|security team|privacy officer|dpo|repo(?:sitory)? owner|project owner|maintainers?|platform team|incident commander|tech lead|the user)\b[^.;\n]{0,20}?\b(?:approved|signed off|authori[sz]ed|okayed|said (?:it'?s|it is|that'?s) (?:fine|ok|okay)|says (?:it'?s|it is) (?:fine|ok|okay)|is fine with|reviewed it|confirmed|agreed)\b|\b(?:standing order|official (?:instruction|guidance|policy|directive)|note|message|instruction|guidance|directive|order)s?\s+from\s+(?:the\s+)?(?:[\w'-]+\s+){0,3}?(?:cto|ceo|ciso|vp|team|anthropic|openai|cursor|github|google|microsoft|commander|management|security|legal)\b|\b(?:per|according to)\s+(?:anthropic|openai|cursor|github|google|microsoft)'?s?\b|\b(?:anthropic|openai|cursor)'?s?\s+(?:safety team|guidance|policy|team)\b|\bis pre-?approved\b|` + mlAuthority)
	checksDroppedCondRe = fxRx(`\bno need to\s+(?:ask|check|verify|confirm|read|review|test|back ?up|wait|look)\w*|\b(?:don'?t|do not) bother\s+(?:checking|asking|verifying|reading|reviewing|testing|looking)\b|\bwithout\s+(?:asking|confirmation|approval|review|reviewing|checking|verifying|reading)\b|\bwhenever (?:they|anyone|someone) asks?\b|` + mlWithoutCheck)
)

// readConditions returns the conditions found in text, as hits with the
// span of their words.
func readConditions(text string) []effectHit {
	var out []effectHit
	for _, c := range []struct {
		re     *regexp.Regexp
		class  string
		reason string
	}{
		{triggerCondRe, "trigger", "only when a trigger fires"},
		{authorityCondRe, "authority", "claims an approval it cannot show"},
		{checksDroppedCondRe, "no_check", "says to skip asking or checking"},
	} {
		if loc := c.re.FindStringIndex(text); loc != nil {
			// A lexicon match may begin with the character before the stem.
			s := loc[0]
			for s < loc[1] && !isWordStart(text, s) {
				s++
			}
			out = append(out, effectHit{class: c.class, start: s, end: loc[1], reason: c.reason, label: c.reason})
		}
	}
	return out
}

// isWordStart reports whether a letter or digit starts at i.
func isWordStart(text string, i int) bool {
	c := text[i]
	return c >= 0x80 || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '$' || c == '~'
}

// officialInstallers are the canonical installers of widely used
// developer tools, as their vendors document them: a pipe to a shell from
// one of these is how the tool is installed. The list is short on
// purpose (a held-out corpus will have other installers, which the guard
// sends to review) and is reported apart in TestEvalConventions.
var officialInstallers = []string{
	"sh.rustup.rs", "static.rust-lang.org/rustup", "get.volta.sh", "foundry.paradigm.xyz", "astral.sh/uv/", "astral.sh/ruff/",
	"get.pnpm.io", "raw.githubusercontent.com/nvm-sh/nvm/", "get.k3s.io", "claude.ai/install", "raw.githubusercontent.com/homebrew/install/",
	"get.docker.com", "deno.land/install", "deno.land/x/install", "tailscale.com/install.sh", "bun.sh/install", "install.python-poetry.org",
	"raw.githubusercontent.com/helm/helm/", "get.helm.sh", "ollama.com/install.sh", "get.sdkman.io", "install.determinate.systems/nix",
	"nixos.org/nix/install", "get.rvm.io", "starship.rs/install.sh", "fly.io/install.sh", "pyenv.run", "mise.run", "mise.jdx.dev/install.sh",
	"sdk.cloud.google.com", "get.pulumi.com", "rclone.org/install.sh", "get.acme.sh", "raw.githubusercontent.com/ohmyzsh/ohmyzsh/",
	"get-ghcup.haskell.org", "dot.net/v1/dotnet-install", "aka.ms/install-azd", "aka.ms/installazurecli", "cli.doppler.com/install",
	"get.chezmoi.io", "fnm.vercel.app/install", "pixi.sh/install", "moonrepo.dev/install", "taskfile.dev/install.sh", "just.systems/install.sh",
	"wasmtime.dev/install.sh", "get.wasmer.io", "install.julialang.org", "opencode.ai/install", "cursor.com/install", "deb.nodesource.com/setup_",
	"rpm.nodesource.com/setup_", "raw.githubusercontent.com/pyenv/pyenv-installer/", "raw.githubusercontent.com/k3d-io/k3d/", "run.linkerd.io/install",
	"istio.io/downloadistio", "dl.dagger.io/dagger/install.sh", "bootstrap.pypa.io/get-pip.py", "install.meteor.com", "cli.github.com",
}

// officialInstaller reports whether s fetches one of the canonical
// installers.
func officialInstaller(s string) bool {
	l := asciiLower(s)
	for _, m := range fxURLRe.FindAllStringIndex(l, 4) {
		u := l[m[0]:m[1]]
		if i := strings.Index(u, "://"); i >= 0 {
			u = u[i+3:]
		}
		for _, o := range officialInstallers {
			if strings.HasPrefix(u, o) {
				return true
			}
		}
	}
	// irm bun.sh/install.ps1|iex: a host without a scheme.
	for _, o := range officialInstallers {
		if i := strings.Index(l, o); i >= 0 && (i == 0 || !isAlnum(l[i-1]) && l[i-1] != '.' && l[i-1] != '-') {
			return true
		}
	}
	return false
}

// A definition names a command or a target ("'the sync step' means `curl …
// | sudo bash`", "the 'partner address' is records@…", "we call it the
// 'fast lane': …"); a sentence that uses the name does what the
// definition says.
var definitionRe = regexp.MustCompile(`(?i)(?:^|[^\w])['"‘“` + "`" + `]([^'"‘’“”` + "`" + `\n]{2,40})['"’”` + "`" + `]\s*(?:[^.;:\n'"‘’“”` + "`" + `]{0,40}?\s)?(?:means|is our (?:shorthand|name|term) for|is short for|refers to|stands for|is|are|=|:)\s+|\bwe call (?:it|this) (?:the\s+)?['"‘“]([^'"‘’“”\n]{2,40})['"’”]\s*:\s*`)

// defView is a sentence that uses a defined term, with the definition in
// its place: the text the rules read, and where the term is.
type defView struct {
	term string
	at   fxSpan
	text string
}

func definitionViews(text string, sents []fxSpan) []defView {
	var out []defView
	var lowered []string // each sentence in ASCII lower case, made once
	defs := 0
	for _, s := range sents {
		sent := text[s.start:s.end]
		if strings.Count(sent, "'")+strings.Count(sent, `"`)+strings.Count(sent, "`")+strings.Count(sent, "‘")+strings.Count(sent, "“") < 2 {
			continue // no quoted term
		}
		m := definitionRe.FindStringSubmatchIndex(sent)
		if m == nil {
			continue
		}
		term := ""
		if m[2] >= 0 {
			term = sent[m[2]:m[3]]
		} else if m[4] >= 0 {
			term = sent[m[4]:m[5]]
		}
		term = strings.TrimSpace(term)
		body := strings.TrimSpace(sent[m[1]:])
		if len(term) < 3 || body == "" {
			continue
		}
		if defs++; defs > 16 {
			break
		}
		if lowered == nil {
			lowered = make([]string, len(sents))
			for k, o := range sents {
				lowered[k] = asciiLower(text[o.start:o.end])
			}
		}
		lt := asciiLower(term)
		for k, o := range sents {
			if o == s {
				continue
			}
			other := text[o.start:o.end]
			i := strings.Index(lowered[k], lt)
			if i < 0 {
				continue
			}
			// The definition in place of the term, so that the sentence
			// reads as it means ("send the audit inbox" → "send
			// audits@…").
			view := other[:i] + strings.TrimRight(body, ".") + other[i+len(term):]
			out = append(out, defView{term: term, at: fxSpan{o.start + i, o.start + i + len(term)}, text: view})
			if len(out) >= 8 {
				return out
			}
		}
	}
	return out
}
