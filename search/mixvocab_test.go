package search

import "testing"

// mixVocabTools are tools described in English (and one in Chinese), each
// named by a concept the bilingual lexicon's Chinese, Japanese, German and
// Spanish words for processes, snapshots, scaling, apps, domains, the body,
// lodging, warnings, renaming and progress carry.
var mixVocabTools = []Doc{
	{ID: "kill", Server: "shell", Tool: "kill_process", Description: "Terminate a running process by PID."},
	{ID: "snapshot", Server: "cloud", Tool: "snapshot_server", Description: "Take a snapshot of a virtual server."},
	{ID: "scale", Server: "k8s", Tool: "kubectl_scale", Description: "Scale a Kubernetes deployment to a number of replicas."},
	{ID: "launch", Server: "phone", Tool: "launch_app", Description: "Launch an app on the mobile device."},
	{ID: "domain", Server: "registrar", Tool: "check_domain_availability", Description: "Check availability of domain names."},
	{ID: "body", Server: "fitness", Tool: "create_body_measurement", Description: "Record a body measurement (weight, body fat) for a date."},
	{ID: "summary", Server: "fitness", Tool: "get_training_summary", Description: "Summarize workouts over the last weeks."},
	{ID: "stay", Server: "rentals", Tool: "search_listings", Description: "Search for Airbnb listings in a location."},
	{ID: "alerts", Server: "weather", Tool: "get_alerts", Description: "Get active weather alerts and warnings for a location."},
	{ID: "rename", Server: "fs", Tool: "move_file", Description: "Move or rename files and directories."},
	{ID: "channel", Server: "chat", Tool: "send_channel_message", Description: "Send a message to a channel."},
	{ID: "forum", Server: "chat", Tool: "create_forum_post", Description: "Create a new post in a forum."},
	{ID: "progress", Server: "devops", Tool: "get_test_plan_progress", Description: "获取测试计划用例执行进度统计"},
	{ID: "read", Server: "fs", Tool: "read_file", Description: "Read the contents of a file."},
	{ID: "open_url", Server: "phone", Tool: "open_url", Description: "Open a URL in the browser on the mobile device."},
	{ID: "forecast", Server: "weather", Tool: "get_forecast", Description: "Get the weather forecast for a city."},
	{ID: "domain_info", Server: "registrar", Tool: "get_domain", Description: "Get the details of a domain you own."},
}

// TestMixedScriptRequestReachesToolByConcept: a short request in Chinese,
// Japanese, German or Spanish whose concept the lexicon carries finds the
// tool described for it first.
func TestMixedScriptRequestReachesToolByConcept(t *testing.T) {
	t.Parallel()
	ix := New(mixVocabTools)
	tests := []struct{ lang, query, want string }{
		{"zh", "强制结束这个进程", "kill"},
		{"zh", "程序卡住了，把它杀死", "kill"},
		{"ja", "応答なしのプロセスを強制終了", "kill"},
		{"ja", "アプリがフリーズした", "kill"},
		{"de", "Der Prozess hängt", "kill"},
		{"es", "el proceso está congelado", "kill"},
		{"es", "matar el proceso 4242", "kill"},
		{"zh", "给云主机拍个快照", "snapshot"},
		{"ja", "スナップショットを作成", "snapshot"},
		{"de", "Schnappschuss der VM", "snapshot"},
		{"es", "crear una instantánea", "snapshot"},
		{"zh", "服务扩容到十个副本", "scale"},
		{"zh", "缩容一下", "scale"},
		{"ja", "レプリカを減らす", "scale"},
		{"de", "Deployment skalieren", "scale"},
		{"es", "escalar a dos réplicas", "scale"},
		{"zh", "在手机上启动这个应用", "launch"},
		{"ja", "スマホのアプリを起動", "launch"},
		{"ja", "アプリを立ち上げて", "launch"},
		{"zh", "这个域名被注册了吗", "domain"},
		{"ja", "ドメインの空きを確認", "domain"},
		{"de", "ist example.de verfügbar", "domain"},
		{"es", "dominio disponible", "domain"},
		{"zh", "记一下我的体重", "body"},
		{"ja", "体脂肪率を記録", "body"},
		{"de", "mein Gewicht eintragen", "body"},
		{"es", "anota mi peso", "body"},
		{"zh", "最近的健身情况", "summary"},
		{"ja", "筋トレのまとめ", "summary"},
		{"zh", "找个民宿", "stay"},
		{"zh", "大阪住宿", "stay"},
		{"ja", "大阪で泊まれるところ", "stay"},
		{"ja", "民泊を探す", "stay"},
		{"de", "Ferienwohnung an der Ostsee", "stay"},
		{"es", "hospedaje en Cusco", "stay"},
		{"zh", "台风预警", "alerts"},
		{"zh", "有没有天气警报", "alerts"},
		{"ja", "大雨警報は出てる？", "alerts"},
		{"ja", "雷注意報", "alerts"},
		{"zh", "给文件改名", "rename"},
		{"zh", "把报告挪到归档目录", "rename"},
		{"ja", "ファイル名を変更", "rename"},
		{"ja", "ファイルをリネーム", "rename"},
		{"es", "renombrar el archivo", "rename"},
		{"ja", "チャンネルにメッセージを送る", "channel"},
		{"ja", "テスト計画の進み具合", "progress"},
	}
	for _, tt := range tests {
		wantFirst(t, ix, mixVocabTools, tt.query, tt.want)
	}
}

// TestGermanSeparableVerbIsJoined: a German request that ends in the
// particle of a separable verb reads its verb with the particle (benenne …
// um → umbenennen, lade … hoch → hochladen), as the lexicon lists it; an
// English request keeps its words.
func TestGermanSeparableVerbIsJoined(t *testing.T) {
	t.Parallel()
	ix := New(englishTools)
	tests := []struct {
		query    string
		has, not []string
	}{
		{"Benenne die Datei um", []string{"rename"}, nil},
		{"Lade die Datei hoch", []string{"upload"}, nil},
		{"Melde mich ab", []string{"logout"}, nil},
		{"Lade die Berichte herunter", []string{"download"}, nil},
		{"log in", nil, []string{"login", "logout"}},
	}
	for _, tt := range tests {
		checkTerms(t, ix, tt.query, tt.has, tt.not)
	}
}

// timeClauseTools are a snapshot tool and tools whose words a clause of
// time after the operation uses.
var timeClauseTools = []Doc{
	{ID: "snapshot", Server: "cloud", Tool: "snapshot_droplet", Description: "Take a snapshot of a droplet."},
	{ID: "update_server", Server: "hosting", Tool: "update_server", Description: "Update the server: change, modify, edit or patch its settings."},
	{ID: "update_item", Server: "tracker", Tool: "update_item", Description: "Update an item: change, edit or patch its fields."},
	{ID: "update_mock", Server: "api", Tool: "update_mock", Description: "Update a mock server."},
	{ID: "deploy", Server: "cloud", Tool: "deploy_app", Description: "Deploy the app to production."},
}

// TestTimeClauseWeighsLittle: in a German, Spanish, French or Italian
// request, the words of a clause of time after the operation ("bevor ich
// update", "antes de actualizar") say when, so the operation's tool ranks
// first; the same words as the operation itself keep their weight.
func TestTimeClauseWeighsLittle(t *testing.T) {
	t.Parallel()
	ix := New(timeClauseTools)
	tests := []struct{ query, want string }{
		{"Schnappschuss machen, bevor ich update", "snapshot"},
		{"saca una instantánea del servidor antes de actualizar", "snapshot"},
		{"crea una instantánea del servidor después de desplegar", "snapshot"},
		{"actualiza el servidor antes de la demo", "update_server"},
	}
	for _, tt := range tests {
		hits := ix.Search(tt.query, 3)
		if len(hits) == 0 || timeClauseTools[hits[0].Doc].ID != tt.want {
			got := ids(timeClauseTools, hits)
			t.Errorf("%q: top %v, want %s first", tt.query, got, tt.want)
		}
	}
}

// devVocabTools are tools described in English for the loanwords of
// development tools (katakana, Chinese), charts, text recognition,
// accounts and languages.
var devVocabTools = []Doc{
	{ID: "pull", Server: "git", Tool: "git_pull", Description: "Pull changes from a remote repository into the current branch."},
	{ID: "exec", Server: "k8s", Tool: "exec_in_pod", Description: "Execute a command in a pod and return the output."},
	{ID: "drain", Server: "k8s", Tool: "node_management", Description: "Manage nodes with cordon, drain and uncordon operations."},
	{ID: "port_forward", Server: "k8s", Tool: "port_forward", Description: "Forward a local port to a port on a resource."},
	{ID: "scatter", Server: "charts", Tool: "generate_scatter_chart", Description: "Generate a scatter chart of two variables."},
	{ID: "radar", Server: "charts", Tool: "generate_radar_chart", Description: "Generate a radar chart of several dimensions."},
	{ID: "ocr", Server: "vision", Tool: "extract_text_from_screenshot", Description: "Extract and recognize text from screenshots (OCR)."},
	{ID: "screenshot", Server: "browser", Tool: "take_screenshot", Description: "Take a screenshot of the page."},
	{ID: "pnl", Server: "books", Tool: "list_profit_and_loss", Description: "Profit and loss report: revenue, expenses and profit."},
	{ID: "detect", Server: "translate", Tool: "detect_language", Description: "Detect the language of a text."},
	{ID: "network", Server: "browser", Tool: "list_network_requests", Description: "List the network requests of the page."},
	{ID: "subreddit", Server: "reddit", Tool: "browse_subreddit", Description: "Fetch hot or top posts from a subreddit."},
	{ID: "video", Server: "media", Tool: "image_to_video", Description: "Generate a video from an image."},
	{ID: "update", Server: "chat", Tool: "update_room", Description: "Update the name of a chat room."},
	{ID: "chart", Server: "charts", Tool: "generate_bar_chart", Description: "Generate a bar chart."},
	{ID: "session", Server: "auth", Tool: "list_sessions", Description: "List the active sessions and their tokens."},
}

// TestDevLoanwordsAndChartsReachTools: a short request in Japanese,
// Chinese, German or Spanish that names a development thing by its
// loanword (ポッド, ノード, リモート, 端口), a kind of chart, text
// recognition, a profit and loss statement or a language finds the
// tool described in English for it first.
func TestDevLoanwordsAndChartsReachTools(t *testing.T) {
	t.Parallel()
	ix := New(devVocabTools)
	tests := []struct{ lang, query, want string }{
		{"ja", "リモートから変更を取り込む", "pull"},
		{"zh", "从远程拉取最新代码", "pull"},
		{"es", "trae los cambios del repositorio remoto", "pull"},
		{"ja", "ポッドでコマンドを実行", "exec"},
		{"ja", "ノードを退避させる", "drain"},
		{"zh", "把节点设为不可调度", "drain"},
		{"zh", "端口转发到本地", "port_forward"},
		{"ja", "ポートフォワードしたい", "port_forward"},
		{"ja", "散布図を描いて", "scatter"},
		{"de", "ein Streudiagramm zeichnen", "scatter"},
		{"es", "gráfico de dispersión", "scatter"},
		{"zh", "做个雷达图", "radar"},
		{"ja", "スクリーンショットの文字を読み取る", "ocr"},
		{"ja", "文字認識をかけたい", "ocr"},
		{"zh", "图片文字识别", "ocr"},
		{"ja", "損益計算書を見せて", "pnl"},
		{"ja", "このテキストは何語？", "detect"},
		{"zh", "判断这段文本是什么语言", "detect"},
		{"zh", "看看页面的网络请求", "network"},
		{"ja", "ページのネットワークを確認", "network"},
		{"ja", "サブレディットの人気投稿", "subreddit"},
		{"es", "haz un vídeo con esta imagen", "video"},
		{"ja", "セッションとトークンの一覧", "session"},
	}
	for _, tt := range tests {
		wantFirst(t, ix, devVocabTools, tt.query, tt.want)
	}
}

// workVocabTools are tools described in English for everyday words of
// work, media and the browser that Japanese writes as loanwords and
// Chinese as its own words.
var workVocabTools = []Doc{
	{ID: "milestone", Server: "tracker", Tool: "create_milestone", Description: "Create a milestone in a project."},
	{ID: "sprint", Server: "tracker", Tool: "list_sprints", Description: "List the sprints (iterations) of a team."},
	{ID: "reaction", Server: "chat", Tool: "add_reaction", Description: "Add an emoji reaction to a message."},
	{ID: "reply", Server: "chat", Tool: "reply_to_thread", Description: "Reply to a message thread."},
	{ID: "webhook", Server: "chat", Tool: "create_webhook", Description: "Create a webhook for a channel."},
	{ID: "restore", Server: "cloud", Tool: "restore_backup", Description: "Restore a server from a backup."},
	{ID: "recording", Server: "phone", Tool: "start_screen_recording", Description: "Start a screen recording on the device."},
	{ID: "heap", Server: "devtools", Tool: "take_heap_snapshot", Description: "Capture a heap snapshot of the page."},
	{ID: "trace", Server: "devtools", Tool: "performance_trace", Description: "Record a performance trace of the page."},
	{ID: "console", Server: "devtools", Tool: "console_messages", Description: "List the console messages of the page."},
	{ID: "tabs", Server: "browser", Tool: "browser_tabs", Description: "List, open or close browser tabs."},
	{ID: "mindmap", Server: "charts", Tool: "generate_mind_map", Description: "Generate a mind map."},
	{ID: "uninstall", Server: "phone", Tool: "uninstall_app", Description: "Uninstall an app from the device."},
	{ID: "draft", Server: "mail", Tool: "create_draft", Description: "Create an email draft."},
	{ID: "routine", Server: "fitness", Tool: "create_routine", Description: "Create a workout routine."},
	{ID: "docs", Server: "ui", Tool: "get_component_docs", Description: "Get the docs of a UI component."},
}

// TestEverydayLoanwordsReachTools: a short Japanese request naming a thing
// by its katakana loanword, or a Chinese one by its own word, finds the tool
// described in English for it first.
func TestEverydayLoanwordsReachTools(t *testing.T) {
	t.Parallel()
	ix := New(workVocabTools)
	tests := []struct{ lang, query, want string }{
		{"ja", "マイルストーンを追加", "milestone"},
		{"zh", "新建一个里程碑", "milestone"},
		{"ja", "今のスプリントの一覧", "sprint"},
		{"zh", "这个迭代有哪些", "sprint"},
		{"ja", "メッセージにリアクションを付ける", "reaction"},
		{"zh", "给消息加个表情", "reaction"},
		{"ja", "ウェブフックを作成", "webhook"},
		{"ja", "バックアップからリストア", "restore"},
		{"zh", "从备份还原服务器", "restore"},
		{"ja", "画面のレコーディングを開始", "recording"},
		{"zh", "开始录屏", "recording"},
		{"ja", "ヒープを取る", "heap"},
		{"ja", "パフォーマンスのトレース", "trace"},
		{"zh", "分析页面性能", "trace"},
		{"ja", "コンソールのログを見る", "console"},
		{"zh", "看一下控制台输出", "console"},
		{"ja", "開いているタブの一覧", "tabs"},
		{"ja", "マインドマップを作って", "mindmap"},
		{"zh", "画个思维导图", "mindmap"},
		{"ja", "アプリをアンインストール", "uninstall"},
		{"zh", "卸载这个应用", "uninstall"},
		{"ja", "メールの下書きを作る", "draft"},
		{"zh", "存一份邮件草稿", "draft"},
		{"ja", "筋トレのルーティンを作成", "routine"},
		{"ja", "コンポーネントのドキュメント", "docs"},
	}
	for _, tt := range tests {
		wantFirst(t, ix, workVocabTools, tt.query, tt.want)
	}
}

// pageVocabTools are browser tools for moving about a page, and tools that
// comment and list.
var pageVocabTools = []Doc{
	{ID: "back", Server: "browser", Tool: "browser_navigate_back", Description: "Go back to the previous page in the history."},
	{ID: "hover", Server: "browser", Tool: "browser_hover", Description: "Hover over an element on the page."},
	{ID: "scroll", Server: "browser", Tool: "browser_scroll", Description: "Scroll the page."},
	{ID: "click", Server: "browser", Tool: "browser_click", Description: "Click an element on the page."},
	{ID: "press", Server: "phone", Tool: "press_button", Description: "Press a button on the device."},
	{ID: "comment", Server: "tracker", Tool: "create_comment", Description: "Create a comment on an issue."},
	{ID: "issue", Server: "tracker", Tool: "get_issue", Description: "Get an issue."},
	{ID: "collections", Server: "mongo", Tool: "list_collections", Description: "List all collections of a database."},
	{ID: "databases", Server: "mongo", Tool: "list_databases", Description: "List all databases."},
}

// TestPageMovesReachBrowserTools: going back, hovering and scrolling, asked
// in Chinese, Japanese, German or Spanish, find the browser tool for them;
// so do commenting and listing.
func TestPageMovesReachBrowserTools(t *testing.T) {
	t.Parallel()
	ix := New(pageVocabTools)
	tests := []struct{ lang, query, want string }{
		{"zh", "浏览器后退一页", "back"},
		{"zh", "回到上一页", "back"},
		{"ja", "前のページに戻って", "back"},
		{"de", "zurück zur vorherigen Seite", "back"},
		{"es", "regresar a la página anterior", "back"},
		{"zh", "把鼠标悬停在菜单上", "hover"},
		{"ja", "メニューにマウスオーバー", "hover"},
		{"ja", "リンクにホバーする", "hover"},
		{"zh", "页面滚到底部", "scroll"},
		{"zh", "往下滑一点", "scroll"},
		{"zh", "在这个问题下留言", "comment"},
		{"zh", "在问题下面留个言", "comment"},
		{"es", "enumera las colecciones de la base de datos", "collections"},
	}
	for _, tt := range tests {
		wantFirst(t, ix, pageVocabTools, tt.query, tt.want)
	}
}

// TestSpanishStemChangingVerbReachesItsVerb: the forms of a Spanish verb
// whose stressed stem takes a diphthong (vuelve, cierre, muestre,
// encuentre, pruebe) reach its infinitive (volver, cerrar, mostrar,
// encontrar, probar), as the regular forms do by rule.
func TestSpanishStemChangingVerbReachesItsVerb(t *testing.T) {
	t.Parallel()
	ix := New(englishTools)
	tests := []struct {
		query string
		has   []string
	}{
		{"vuelve a la página de inicio", []string{"back"}},
		{"cierre la pestaña", []string{"close"}},
		{"muestre los archivos del proyecto", []string{"show"}},
		{"encuentre el archivo de configuración", []string{"find"}},
		{"pruebe la conexión con la base de datos", []string{"test"}},
	}
	for _, tt := range tests {
		checkTerms(t, ix, tt.query, tt.has, nil)
	}
}
